/**
 * The frame of the pages without a session (sign in, set password, an invitation link, SSO),
 * and their helpers. Each such page drops htmx's history entries from the tab (dashboard.js).
 */
import { Head } from "./layout.tsx";

export function Page(props: { title: string; children?: unknown; wide?: boolean }) {
  return (
    <html lang="en" data-forget-history="true">
      <Head title={props.title} />
      <body>
        <div class={props.wide ? "login wide" : "login"}>
          <h1>
            Sovra<span class="muted">.</span>
          </h1>
          <p class="muted">{props.title}</p>
          {props.children as never}
        </div>
      </body>
    </html>
  );
}

/** Only local paths are followed after sign-in (no open redirect). */
export function safeNext(raw: string | undefined): string {
  return raw && /^\/(?!\/)[\w\-./?=&%]*$/.test(raw) ? raw : "/";
}

/** "Sign in with …" for each identity provider an organization signs in with. */
export function SsoButtons(
  props: { providers: Array<{ id: string; name: string }>; next: string },
) {
  if (props.providers.length === 0) return null;
  return (
    <div class="sso-buttons">
      {props.providers.map((p) => (
        <a
          class="button secondary"
          hx-boost="false"
          href={`/sso/start?provider=${encodeURIComponent(p.id)}&next=${
            encodeURIComponent(props.next)
          }`}
        >
          Sign in with {p.name}
        </a>
      ))}
      <p class="muted or">or with your e-mail and password</p>
    </div>
  );
}
