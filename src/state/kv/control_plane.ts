/**
 * The control-plane areas (accounts, ledger, audit, settings, single sign-on, two-factor
 * sign-in) over the gateway's KV handle.
 */
import { KvAccountStore } from "./accounts.ts";
import { KvControlStore } from "./control.ts";
import { KvSsoStore } from "./sso.ts";
import { KvTwoFactorStore } from "./two_factor.ts";
import type { AccountStore } from "../account_store.ts";
import type { ControlStore } from "../control_store.ts";
import type { SsoStore } from "../sso_store.ts";
import type { TwoFactorStore } from "../two_factor_store.ts";
import type { Store } from "../store.ts";

export interface ControlPlaneStores {
  accounts: AccountStore;
  control: ControlStore;
  sso: SsoStore;
  twoFactor: TwoFactorStore;
}

export function kvControlPlane(kv: Deno.Kv): ControlPlaneStores {
  return {
    accounts: new KvAccountStore(kv),
    control: new KvControlStore(kv),
    sso: new KvSsoStore(kv),
    twoFactor: new KvTwoFactorStore(kv),
  };
}

/**
 * The control-plane stores of an opened store: a backend that carries its own (PostgreSQL's
 * `controlPlane`, in its folder) gives those; a KV store gets the KV ones.
 */
export function controlPlaneOf(store: Store): ControlPlaneStores | undefined {
  const own = (store as { controlPlane?: ControlPlaneStores }).controlPlane;
  if (own) return own;
  const kv = (store as { kv?: unknown }).kv;
  return kv instanceof Deno.Kv ? kvControlPlane(kv) : undefined;
}
