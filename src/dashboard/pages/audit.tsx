/** The audit log: every control-plane action with actor, time and target. */
import type { OrgPage } from "./nav.ts";
import { frameFor, Layout } from "./layout.tsx";
import { orgAudit } from "../areas/audit_log.ts";
import type { AuditEntry } from "../../state/account_records.ts";

export function AuditTable(props: { entries: AuditEntry[] }) {
  return (
    <table id="audit">
      <thead>
        <tr>
          <th>When (UTC)</th>
          <th>Actor</th>
          <th>Action</th>
          <th>Target</th>
          <th>Details</th>
        </tr>
      </thead>
      <tbody>
        {props.entries.map((e) => (
          <tr>
            <td>{e.created.slice(0, 19).replace("T", " ")}</td>
            <td>{e.actor}</td>
            <td>
              <span class={`pill ${e.action === "login.failed" ? "error" : ""}`}>{e.action}</span>
            </td>
            <td>{e.target ?? ""}</td>
            <td class="muted">
              {Object.entries(e.detail).map(([k, v]) => `${k}: ${v}`).join(", ")}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export const auditPage: OrgPage = {
  path: "audit",
  title: "Audit log",
  visible: () => true,
  register(router, deps) {
    router.get("/audit", async (c) => {
      const entries = await orgAudit(deps, c.var.access, 200);
      const frame = await frameFor(deps, c.var.viewer, c.var.access, "Audit log", "audit");
      return c.html(
        <Layout {...frame}>
          <div class="panel">
            <AuditTable entries={entries} />
            {entries.length === 0 && <p class="muted">Nothing recorded yet.</p>}
          </div>
        </Layout>,
      );
    });
  },
};
