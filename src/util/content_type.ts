/** `application/json` or any `application/*+json`, parameters ignored. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
