/**
 * A port that cannot be bound, as a start-up error naming the variable that moves it (the
 * request API's `SOVRA_PORT`, the dashboard's `SOVRA_DASHBOARD_PORT`).
 */
export function describeBindError(
  error: unknown,
  variable: string,
  host: string,
  port: number,
): Error {
  if (error instanceof Deno.errors.AddrInUse) {
    return new Error(
      `Port ${port} on ${host} is already in use (another Sovra or demo?); set ${variable} to a free port.`,
    );
  }
  if (
    error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.AddrNotAvailable
  ) {
    return new Error(
      `Cannot listen on ${host}:${port} (${
        (error as Error).message
      }); check ${variable} and SOVRA_HOST.`,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
