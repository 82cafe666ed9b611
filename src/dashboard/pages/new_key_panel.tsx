/** The panel that shows a new key once (created or a rotation's successor), with the snippets. */
import type { DashboardDeps } from "../deps.ts";
import { type CreatedKey, keySnippets } from "../areas/keys.ts";
import { exampleModel } from "../example_model.ts";

export function NewKeyPanel(props: { deps: DashboardDeps; created: CreatedKey; lead?: string }) {
  const { created } = props;
  const snippets = keySnippets(props.deps.apiUrl, created.key, exampleModel(props.deps));
  return (
    <div class="notice" role="status" id="new-key-panel" hx-history="false">
      <p>
        <strong>{props.lead ?? `Your new key “${created.name}”.`}</strong>{" "}
        Copy it now: it is shown only once and cannot be recovered.
      </p>
      <p>
        <code class="key" id="new-key">{created.key}</code>{" "}
        <button type="button" data-copy="#new-key">Copy</button>
      </p>
      <p class="muted">curl</p>
      <pre id="snippet-curl">{snippets.curl}</pre>
      <p class="muted">Python (openai SDK)</p>
      <pre>{snippets.python}</pre>
      <p class="muted">TypeScript (openai SDK)</p>
      <pre>{snippets.typescript}</pre>
    </div>
  );
}
