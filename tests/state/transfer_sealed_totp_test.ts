/**
 * `admin export` / `admin import` with TOTP secrets sealed at rest (`SOVRA_SECRET_KEY`): the
 * export carries the sealed form, and the import takes it back, so the enrolment still signs in
 * on the instance it moved to (under the same key).
 */
import assert from "node:assert/strict";
import { createKvStore } from "../../src/state/kv/kv_store.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";
import { exportState, importState } from "../../src/admin/transfer_commands.ts";
import { sealedTwoFactorStore } from "../../src/state/sealed_two_factor.ts";
import { SecretBox } from "../../src/util/secret_box.ts";
import { newTotpSecret } from "../../src/dashboard/two_factor/totp.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
const T = "2026-11-20T08:00:00.000Z";

Deno.test("export/import — a sealed TOTP enrolment is exported sealed and imported back", async () => {
  const from = createKvStore(await Deno.openKv(":memory:"));
  const to = createKvStore(await Deno.openKv(":memory:"));
  try {
    const sealed = sealedTwoFactorStore(
      kvControlPlane(from.kv).twoFactor,
      new SecretBox(KEY, "totp secrets"),
    );
    const secret = newTotpSecret();
    const pending = { created: T, enabled_at: null, last_step: 0, recovery_hashes: [] };
    assert.ok(await sealed.putPendingTotp({ ...pending, user: "usr_a", secret }));
    assert.ok(await sealed.enableTotp("usr_a", secret, T, 1, ["ab".repeat(32)]));

    let text = "";
    await exportState(from, "kv", (chunk) => {
      text += chunk;
      return Promise.resolve();
    });
    const line = text.split("\n").map((l) => l && JSON.parse(l)).find((l) => l?.type === "totp");
    assert.match(line.secret, /^sealed:v1:/, "the export holds the sealed form only");

    await importState(to, text);
    const back = sealedTwoFactorStore(
      kvControlPlane(to.kv).twoFactor,
      new SecretBox(KEY, "totp secrets"),
    );
    const record = await back.getTotp("usr_a");
    assert.equal(record?.secret, secret);
    assert.equal(record?.enabled_at, T);
  } finally {
    await from.close();
    await to.close();
  }
});
