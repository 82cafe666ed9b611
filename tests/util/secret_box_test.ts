/** Sealing secrets at rest: AES-256-GCM under a key derived per purpose from the instance key. */
import assert from "node:assert/strict";
import { isSealed, SecretBox, SecretBoxError } from "../../src/util/secret_box.ts";
import { ConfigError, configFromEnv } from "../../src/config.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

Deno.test("secret box — a sealed secret opens with the same key and purpose, and shows nothing of it", async () => {
  const box = new SecretBox(KEY, "totp secrets");
  const sealed = await box.seal(SECRET, "usr_a");
  assert.ok(isSealed(sealed));
  assert.ok(!sealed.includes(SECRET));
  assert.equal(await box.open(sealed, "usr_a"), SECRET);
  assert.equal(
    await new SecretBox(KEY, "totp secrets").open(sealed, "usr_a"),
    SECRET,
    "a new box, same key",
  );
  assert.notEqual(await box.seal(SECRET, "usr_a"), sealed, "a fresh nonce per seal");
});

Deno.test("secret box — another key, purpose or owner, or an altered value, does not open", async () => {
  const sealed = await new SecretBox(KEY, "totp secrets").seal(SECRET, "usr_a");
  const otherKey = new SecretBox(crypto.getRandomValues(new Uint8Array(32)), "totp secrets");
  await assert.rejects(otherKey.open(sealed, "usr_a"), SecretBoxError);
  await assert.rejects(new SecretBox(KEY, "webhook secrets").open(sealed, "usr_a"), SecretBoxError);
  await assert.rejects(
    new SecretBox(KEY, "totp secrets").open(sealed, "usr_b"),
    SecretBoxError,
    "sealed for another owner",
  );
  const last = sealed.at(-1) === "A" ? "B" : "A";
  await assert.rejects(
    new SecretBox(KEY, "totp secrets").open(sealed.slice(0, -1) + last, "usr_a"),
    SecretBoxError,
  );
  await assert.rejects(
    new SecretBox(KEY, "totp secrets").open("sealed:v1:%%%", "usr_a"),
    SecretBoxError,
  );
});

Deno.test("secret box — a value stored before sealing is read as it is", async () => {
  assert.equal(isSealed(SECRET), false);
  assert.equal(await new SecretBox(KEY, "totp secrets").open(SECRET, "usr_a"), SECRET);
});

Deno.test("config — SOVRA_SECRET_KEY: 32 bytes or more in base64 (either alphabet); anything else refused without the value", () => {
  assert.equal(configFromEnv({}).secretKey, undefined);
  const key = crypto.getRandomValues(new Uint8Array(32));
  assert.deepEqual(configFromEnv({ SOVRA_SECRET_KEY: key.toBase64() }).secretKey, key);
  assert.deepEqual(
    configFromEnv({ SOVRA_SECRET_KEY: key.toBase64({ alphabet: "base64url" }) }).secretKey,
    key,
  );
  for (const bad of [new Uint8Array(31).toBase64(), "not base64 at all!", "c2VjcmV0"]) {
    assert.throws(() => configFromEnv({ SOVRA_SECRET_KEY: bad }), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /SOVRA_SECRET_KEY must be at least 32 random bytes/);
      assert.ok(!e.message.includes(bad));
      return true;
    });
  }
});
