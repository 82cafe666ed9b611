/**
 * A control-plane rule refused the operation: something does not exist, or a value is out of
 * its range. The admin CLI prints the message; the dashboard maps `kind` to its status.
 */
export class AccountError extends Error {
  override name = "AccountError";
  constructor(readonly kind: "not_found" | "invalid", message: string) {
    super(message);
  }
}
