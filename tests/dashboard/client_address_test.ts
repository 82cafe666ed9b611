/**
 * The client address used for sign-in throttling: `SOVRA_TRUSTED_PROXIES` (IPs and CIDRs, v4 and
 * v6) and the X-Forwarded-For walk from the nearest hop.
 */
import assert from "node:assert/strict";
import { ConfigError, configFromEnv } from "../../src/config.ts";
import { clientAddressOf, trustedProxyList } from "../../src/dashboard/client_address.ts";

Deno.test("SOVRA_TRUSTED_PROXIES — comma-separated IPs and CIDRs; anything else stops the start naming the entry", () => {
  assert.deepEqual(configFromEnv({}).trustedProxies, []);
  assert.deepEqual(
    configFromEnv({ SOVRA_TRUSTED_PROXIES: " 10.0.0.0/8, ::1 ,fd00::/8,192.0.2.7" }).trustedProxies,
    ["10.0.0.0/8", "::1", "fd00::/8", "192.0.2.7"],
  );
  for (const bad of ["proxy.internal", "10.0.0.0/33", "::1/129", "10.0.0.0/8/1", "10.0.0/8"]) {
    assert.throws(
      () => configFromEnv({ SOVRA_TRUSTED_PROXIES: `127.0.0.1,${bad}` }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(`'${bad}'`),
      bad,
    );
  }
});

Deno.test("clientAddressOf — the peer unless trusted; then the nearest untrusted X-Forwarded-For hop", () => {
  const proxies = trustedProxyList(["10.0.0.0/8", "::1", "fd00::/8"]);
  assert.equal(clientAddressOf("203.0.113.9", "198.51.100.1", proxies), "203.0.113.9");
  assert.equal(clientAddressOf("10.0.0.2", undefined, proxies), "10.0.0.2");
  assert.equal(clientAddressOf("10.0.0.2", "198.51.100.1", proxies), "198.51.100.1");
  assert.equal(
    clientAddressOf("::1", "6.6.6.6, 2001:db8::7, fd12::3, 10.9.9.9", proxies),
    "2001:db8::7",
    "hops the proxies appended are believed, what the client wrote is not",
  );
  assert.equal(clientAddressOf("10.0.0.2", "[2001:db8::7]:4711", proxies), "2001:db8::7");
  assert.equal(clientAddressOf("10.0.0.2", "198.51.100.1:4711", proxies), "198.51.100.1");
  assert.equal(clientAddressOf("10.0.0.2", "garbage, 10.1.1.1", proxies), "10.1.1.1");
  assert.equal(clientAddressOf("::ffff:10.0.0.2", "198.51.100.1", proxies), "198.51.100.1");
  assert.equal(clientAddressOf(undefined, "198.51.100.1", proxies), "unknown");
});
