/**
 * An organization's or a key's policy as readable fields ("Guardrail: block"), for the
 * policies pages' key narrowing, change history and key pages — never the stored JSON.
 */
import type { KeyPolicy, OrgPolicy } from "../../state/policy_store.ts";

type AnyPolicy = OrgPolicy | KeyPolicy;

const list = (items: string[] | null | undefined, empty: string) =>
  items && items.length > 0 ? items.join(", ") : empty;

/** The fields a policy sets, each as [label, value]; a key policy lists only what it narrows. */
export function policyFields(policy: AnyPolicy): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  const p = policy as Partial<OrgPolicy>;
  if (p.sovereignty !== undefined) {
    fields.push(["Sovereignty", p.sovereignty === "strict_only" ? "strict only" : "any"]);
  }
  if (p.blocked_providers !== undefined) {
    fields.push(["Blocked providers", list(p.blocked_providers, "none")]);
  }
  if (p.zdr_only !== undefined) {
    fields.push(["Zero data retention only", p.zdr_only ? "yes" : "no"]);
  }
  if (p.allowed_models !== undefined) {
    fields.push(["Allowed models", list(p.allowed_models, "all")]);
  }
  if (p.guardrail !== undefined) fields.push(["Guardrail", p.guardrail]);
  if ("guardrail_remote" in p) {
    const r = p.guardrail_remote;
    fields.push([
      "Remote guardrail layer",
      r ? `${r.model}, ${r.timeout_ms} ms, fail ${r.on_error}` : "off",
    ]);
  }
  return fields;
}

/** The fields `after` changed from `before`; all of `after`'s when there was nothing before. */
export function changedFields(
  before: AnyPolicy | null,
  after: AnyPolicy | null,
): Array<[string, string]> {
  if (after === null) return [["Policy", "removed (defaults apply)"]];
  const now = policyFields(after);
  if (before === null) return now;
  const was = new Map(policyFields(before));
  const changed = now.filter(([label, value]) => was.get(label) !== value);
  const cleared = [...was.keys()].filter((label) => !now.some(([l]) => l === label))
    .map((label): [string, string] => [label, "as the organization"]);
  const all = [...changed, ...cleared];
  return all.length > 0 ? all : now;
}

export function PolicyFields(
  props: { fields: Array<[string, string]>; empty?: string; id?: string },
) {
  if (props.fields.length === 0) {
    return <p class="muted" id={props.id}>{props.empty ?? "Nothing set."}</p>;
  }
  return (
    <dl class="fields" id={props.id}>
      {props.fields.map(([label, value]) => (
        <div>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
