/** The audit log: every control-plane action with actor, time and target. */
import type { OrgPage } from "./nav.ts";
import { frameFor, Layout } from "./layout.tsx";
import { orgAudit } from "../areas/audit_log.ts";
import type { AuditEntry } from "../../state/account_records.ts";
import { formatEur } from "../money.ts";
import { ScrollRegion } from "./regions.tsx";

/** A detail's value as the pages write it: amounts in micro-EUR as money. */
function detailText(name: string, value: unknown): string {
  if (name.endsWith("micro_eur") && typeof value === "number") {
    return `${name.replace(/_?micro_eur$/, "") || "amount"}: ${formatEur(value)}`;
  }
  return `${name}: ${value}`;
}

export function AuditTable(props: { entries: AuditEntry[] }) {
  return (
    <ScrollRegion label="Audit log">
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
                {Object.entries(e.detail).map(([k, v]) => detailText(k, v)).join(", ")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
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
