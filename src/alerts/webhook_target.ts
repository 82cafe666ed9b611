/**
 * Where a customer's webhook may point. The gateway posts to a URL the customer chose, so a URL
 * must not reach this machine's or its network's services (a cloud metadata service, a
 * database): https only, and no loopback, private, link-local or shared address — checked when
 * the URL is saved and again, on the addresses its name resolves to, before every delivery.
 * Operators with an on-premises receiver (and the tests) allow http and local addresses with
 * `SOVRA_WEBHOOK_ALLOW_LOCAL=true`.
 */

/** Why this URL is refused as a webhook target, or undefined when it is acceptable. */
export function webhookUrlProblem(raw: string, allowLocal: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "webhook_url must be an absolute URL such as https://example.eu/sovra-alerts.";
  }
  if (url.protocol !== "https:" && !(allowLocal && url.protocol === "http:")) {
    return "webhook_url must be an https:// URL.";
  }
  if (url.username || url.password) return "webhook_url must not carry a user name or password.";
  if (raw.length > 2_000) return "webhook_url must be at most 2,000 characters.";
  if (!allowLocal && isLocalAddress(url.hostname)) {
    return "webhook_url must not point at a loopback, private or link-local address.";
  }
  return undefined;
}

/** A host name or address literal of this machine or a private network. */
export function isLocalAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".internal")) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127);
  }
  if (h.includes(":")) {
    if (h === "::" || h === "::1") return true;
    if (/^f[cd][0-9a-f]{2}:/.test(h) || /^fe[89ab][0-9a-f]:/.test(h)) return true;
    const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(h);
    return mapped !== null && isLocalAddress(mapped[1]!);
  }
  return false;
}

/**
 * Before a delivery: the host's addresses, each checked (a name that resolves to a local
 * address is refused too). Resolution failures are left to the fetch, which reports them.
 */
export async function resolvesLocally(host: string): Promise<boolean> {
  if (isLocalAddress(host)) return true;
  const bare = host.replace(/^\[|\]$/g, "");
  if (/^[\d.]+$/.test(bare) || bare.includes(":")) return false;
  for (const type of ["A", "AAAA"] as const) {
    try {
      const addresses = await Deno.resolveDns(bare, type);
      if (addresses.some((a) => isLocalAddress(a))) return true;
    } catch {
      // No record of this type: the other may exist.
    }
  }
  return false;
}
