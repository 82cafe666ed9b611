/** Helpers for the pages' form actions (the same area functions as the JSON API). */
import type { Context } from "hono";
import { GatewayError } from "../../errors.ts";
import { AccountError } from "../../accounts/account_error.ts";
import { badInput } from "../errors.ts";
import type { PolicyEdit } from "../../policy/policy_edit.ts";

export async function formFields(c: Context): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const form = await c.req.parseBody();
  for (const [name, value] of Object.entries(form)) {
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

/**
 * The message to show on the form for a refusal the user can fix (bad input, role, conflict,
 * throttling); anything else — including 404, which must stay a 404 — is rethrown.
 */
export function formError(error: unknown): GatewayError {
  if (error instanceof AccountError && error.kind === "invalid") {
    return new GatewayError(
      400,
      "invalid_request",
      error.message,
      error.param === undefined ? {} : { param: error.param },
    );
  }
  if (error instanceof GatewayError && [400, 401, 403, 409, 429].includes(error.status)) {
    return error;
  }
  throw error;
}

/** An optional whole number from a form field; NaN when present but not one. */
export function optionalInt(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  return /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
}

/** A comma-separated form field as its non-empty, trimmed items. */
export function list(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** An optional form field that must be one of `allowed` (400 naming the field otherwise). */
export function oneOf<T extends string>(
  raw: string | undefined,
  allowed: readonly T[],
  name: string,
): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw badInput(`'${name}' must be one of ${allowed.join(", ")}.`, name);
  }
  return raw as T;
}

/**
 * The policy forms' fields (organization and key pages) as a change for `policy/policy_edit.ts`:
 * each field given is its whole new value; an empty allow-list field means every model (`null`).
 */
export function policyFormEdit(form: Record<string, string>): PolicyEdit {
  const allowedModels = list(form.allowed_models);
  return {
    sovereignty: oneOf(form.sovereignty, ["any", "strict_only"] as const, "sovereignty"),
    zdr_only: form.zdr_only === undefined ? undefined : form.zdr_only === "true",
    guardrail: oneOf(form.guardrail, ["off", "flag", "block"] as const, "guardrail"),
    ...("blocked_providers" in form ? { blocked_providers: list(form.blocked_providers) } : {}),
    ...("allowed_models" in form
      ? { allowed_models: allowedModels.length === 0 ? null : allowedModels }
      : {}),
  };
}
