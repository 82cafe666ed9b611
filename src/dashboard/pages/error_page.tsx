/** A plain page for refusals and missing pages (the JSON API answers with the error object). */
import { Head } from "./layout.tsx";

export function ErrorPage(props: { status: number; message: string }) {
  return (
    <html lang="en">
      <Head title={props.status === 404 ? "Not found" : "Sovra"} />
      <body>
        <div class="login">
          <h1>
            {props.status === 404 ? "Not found" : props.status >= 400 ? "Not possible" : "Sovra"}
          </h1>
          <p>{props.message}</p>
          <p>
            <a href="/">Back to the dashboard</a>
          </p>
        </div>
      </body>
    </html>
  );
}
