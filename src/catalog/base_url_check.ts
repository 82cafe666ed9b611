/**
 * Providers whose `base_url` points at this machine or a link-local address (a cloud metadata
 * service such as 169.254.169.254): a catalog edit could aim the gateway's credentials there.
 * Warned at start and on reload, except where local upstreams are expected (the demo's
 * simulators: `SOVRA_ALLOW_LOCAL_UPSTREAMS=true`).
 */
import type { Catalog } from "./catalog.ts";

export interface LocalBaseUrl {
  provider: string;
  host: string;
}

function isLocalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost") || h === "metadata.google.internal") {
    return true;
  }
  if (/^127\./.test(h) || /^169\.254\./.test(h) || h === "0.0.0.0") return true;
  return h === "::1" || h === "::" || /^fe[89ab][0-9a-f]:/.test(h) || /^::ffff:127\./.test(h);
}

export function localBaseUrls(catalog: Catalog): LocalBaseUrl[] {
  const out: LocalBaseUrl[] = [];
  for (const [id, provider] of Object.entries(catalog.providers)) {
    const url = provider.base_url;
    if (url === undefined) continue;
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      continue;
    }
    if (isLocalHost(host)) out.push({ provider: id, host });
  }
  return out;
}
