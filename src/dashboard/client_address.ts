/**
 * The client's address for sign-in throttling: the connecting peer, unless the peer is one of
 * `SOVRA_TRUSTED_PROXIES` — then the `X-Forwarded-For` entry its proxy chain recorded: walking
 * the list from the right (the nearest hop first), trusted proxies are skipped and the first
 * address that is not one is the client. A client cannot choose its address by sending the
 * header itself: without a trusted peer the header is ignored, and behind one only entries
 * right of what the client wrote are believed.
 */
import { BlockList, isIP } from "node:net";

const lists = new WeakMap<readonly string[], BlockList>();

/** The block list of the configured entries (built once per configuration list). */
export function trustedProxyList(entries: readonly string[]): BlockList {
  let list = lists.get(entries);
  if (list) return list;
  list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  lists.set(entries, list);
  return list;
}

/** An address as a proxy may write it (`[v6]:port`, `v4:port`, bare), or undefined. */
function bareAddress(raw: string): string | undefined {
  const entry = raw.trim();
  if (isIP(entry)) return entry;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)?.[1];
  if (bracketed && isIP(bracketed) === 6) return bracketed;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry)?.[1];
  return withPort && isIP(withPort) === 4 ? withPort : undefined;
}

function trusted(list: BlockList, address: string): boolean {
  return list.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

export function clientAddressOf(
  peer: string | undefined,
  forwardedFor: string | undefined,
  proxies: BlockList,
): string {
  if (peer === undefined) return "unknown";
  const address = bareAddress(peer) ?? peer;
  if (!isIP(address) || !trusted(proxies, address) || !forwardedFor) return address;
  let client = address;
  for (const raw of forwardedFor.split(",").reverse()) {
    const hop = bareAddress(raw);
    // A hop the trusted proxy wrote but that is no address: stop at the last trusted one.
    if (hop === undefined) return client;
    client = hop;
    if (!trusted(proxies, hop)) return hop;
  }
  return client;
}
