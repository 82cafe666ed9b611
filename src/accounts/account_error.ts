/**
 * A control-plane rule refused the operation: something does not exist, or a value is out of
 * its range. The admin CLI prints the message; the dashboard maps `kind` to its status and
 * `param` (the refused field, when one is) to the error object's `param`.
 */
export class AccountError extends Error {
  override name = "AccountError";
  constructor(
    readonly kind: "not_found" | "invalid",
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}
