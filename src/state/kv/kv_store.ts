/**
 * The Deno KV implementation of `Store`: one handle per process, every area (`orgs.ts`,
 * `api_keys.ts`, `metering.ts`, `request_log.ts`, `routing_policies.ts`) over the same handle
 * and group committer.
 * Only the files of this folder touch `Deno.Kv`.
 */
import { GroupCommitter } from "./group_commit.ts";
import type { CommitObserver } from "../store.ts";
import { withLockRetry } from "../lock_retry.ts";
import { kvOrgStore } from "./orgs.ts";
import { kvApiKeyStore } from "./api_keys.ts";
import { kvMeteringStore } from "./metering.ts";
import { kvRequestLogStore } from "./request_log.ts";
import { kvPolicyStore } from "./policies.ts";
import { kvRouterPinStore } from "./router_pins.ts";
import { kvRoutingPolicyStore } from "./routing_policies.ts";
import { kvAdmissionStore } from "./admissions.ts";
import { kvAlertStore } from "./alerts.ts";
import type { Store } from "../store.ts";
import type { BackendSignals } from "../guarded_store.ts";
import type { StateTransfer } from "../transfer.ts";
import { kvTransfer } from "./transfer.ts";

/** The KV store; `kv` is exposed for tests that inspect every entry (privacy checks). */
export interface KvStore extends Store, StateTransfer, BackendSignals {
  readonly kv: Deno.Kv;
}

/** Opens the KV file (retrying a concurrent first-open race) and wraps it. */
export async function openKvStore(
  path: string,
  commitIntervalMs = 0,
  onCommit?: CommitObserver,
): Promise<KvStore> {
  if (path !== ":memory:" && !path.includes("://")) {
    const dir = path.replace(/[^/]*$/, "");
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  const kv = await withLockRetry(() => Deno.openKv(path));
  return createKvStore(kv, commitIntervalMs, onCommit);
}

export function createKvStore(
  kv: Deno.Kv,
  commitIntervalMs = 0,
  onCommit?: CommitObserver,
): KvStore {
  const writer = new GroupCommitter(kv, commitIntervalMs, onCommit);
  return {
    kv,
    ...kvOrgStore(kv),
    ...kvApiKeyStore(kv),
    ...kvMeteringStore(kv, writer),
    ...kvRequestLogStore(kv),
    ...kvTransfer(kv),
    ...kvPolicyStore(kv),
    ...kvAdmissionStore(kv),
    routingPolicies: kvRoutingPolicyStore(kv),
    routerPins: kvRouterPinStore(kv),
    alerts: kvAlertStore(kv),
    onWriteFailure(listener) {
      writer.failures.push(listener);
    },
    onWriteSuccess(listener) {
      writer.successes.push(listener);
    },
    flushed: () => writer.flushed(),
    async close() {
      await writer.close();
      kv.close();
    },
  };
}
