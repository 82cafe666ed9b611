/** The Deno KV implementation of `SsoStore`, on the gateway's KV handle. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { SsoProviderRemoval, SsoStore } from "../sso_store.ts";
import type {
  SsoBindingRecord,
  SsoFlowRecord,
  SsoIdentityRecord,
  SsoManagedMembership,
  SsoProviderRecord,
} from "../sso_records.ts";

export class KvSsoStore implements SsoStore {
  constructor(private readonly kv: Deno.Kv) {}

  createProvider(provider: SsoProviderRecord): Promise<boolean> {
    return withLockRetry(async () => {
      const result = await this.kv.atomic()
        .check({ key: kvKeys.ssoProvider(provider.id), versionstamp: null })
        .set(kvKeys.ssoProvider(provider.id), provider)
        .commit();
      return result.ok;
    });
  }

  async getProvider(id: string): Promise<SsoProviderRecord | undefined> {
    return (await this.kv.get<SsoProviderRecord>(kvKeys.ssoProvider(id))).value ?? undefined;
  }

  async listProviders(): Promise<SsoProviderRecord[]> {
    return await this.#values<SsoProviderRecord>(kvKeys.ssoProviderPrefix());
  }

  removeProvider(id: string): Promise<SsoProviderRemoval> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<SsoProviderRecord>(kvKeys.ssoProvider(id));
        if (!current.value) return "not_found";
        for await (const _ of this.kv.list({ prefix: kvKeys.ssoProviderOrgPrefix(id) })) {
          return "bound";
        }
        // setBinding rewrites the provider entry, so a binding made meanwhile fails this check.
        const result = await this.kv.atomic().check(current)
          .delete(kvKeys.ssoProvider(id))
          .commit();
        if (result.ok) return "removed";
      }
    });
  }

  async getBinding(orgId: string): Promise<SsoBindingRecord | undefined> {
    return (await this.kv.get<SsoBindingRecord>(kvKeys.ssoBinding(orgId))).value ?? undefined;
  }

  setBinding(binding: SsoBindingRecord): Promise<boolean> {
    return withLockRetry(async () => {
      for (;;) {
        const provider = await this.kv.get<SsoProviderRecord>(kvKeys.ssoProvider(binding.provider));
        if (!provider.value) return false;
        const previous = await this.kv.get<SsoBindingRecord>(kvKeys.ssoBinding(binding.org));
        const op = this.kv.atomic().check(provider).check(previous)
          .set(kvKeys.ssoProvider(binding.provider), provider.value)
          .set(kvKeys.ssoBinding(binding.org), binding)
          .set(kvKeys.ssoProviderOrg(binding.provider, binding.org), true);
        const changedProvider = previous.value && previous.value.provider !== binding.provider;
        if (changedProvider) {
          op.delete(kvKeys.ssoProviderOrg(previous.value!.provider, binding.org));
        }
        if (!(await op.commit()).ok) continue;
        if (changedProvider) await this.#forgetManaged(binding.org);
        return true;
      }
    });
  }

  deleteBinding(orgId: string): Promise<boolean> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<SsoBindingRecord>(kvKeys.ssoBinding(orgId));
        if (!current.value) return false;
        const result = await this.kv.atomic().check(current)
          .delete(kvKeys.ssoBinding(orgId))
          .delete(kvKeys.ssoProviderOrg(current.value.provider, orgId))
          .commit();
        if (!result.ok) continue;
        await this.#forgetManaged(orgId);
        return true;
      }
    });
  }

  async listBindingsOfProvider(providerId: string): Promise<SsoBindingRecord[]> {
    const out: SsoBindingRecord[] = [];
    for await (const e of this.kv.list({ prefix: kvKeys.ssoProviderOrgPrefix(providerId) })) {
      const binding = await this.getBinding(e.key[2] as string);
      if (binding?.provider === providerId) out.push(binding);
    }
    return out;
  }

  async getIdentity(issuer: string, subject: string): Promise<SsoIdentityRecord | undefined> {
    const entry = await this.kv.get<SsoIdentityRecord>(kvKeys.ssoIdentity(issuer, subject));
    return entry.value ?? undefined;
  }

  createIdentity(identity: SsoIdentityRecord): Promise<boolean> {
    const key = kvKeys.ssoIdentity(identity.issuer, identity.subject);
    return withLockRetry(async () => {
      const result = await this.kv.atomic()
        .check({ key, versionstamp: null })
        .set(key, identity)
        .set(kvKeys.ssoUserIdentity(identity.user, identity.issuer, identity.subject), true)
        .commit();
      return result.ok;
    });
  }

  async touchIdentity(issuer: string, subject: string, at: string): Promise<void> {
    const key = kvKeys.ssoIdentity(issuer, subject);
    await withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<SsoIdentityRecord>(key);
        if (!current.value) return;
        const result = await this.kv.atomic().check(current)
          .set(key, { ...current.value, last_sign_in: at })
          .commit();
        if (result.ok) return;
      }
    });
  }

  async deleteIdentity(issuer: string, subject: string): Promise<void> {
    const current = await this.getIdentity(issuer, subject);
    const op = this.kv.atomic().delete(kvKeys.ssoIdentity(issuer, subject));
    if (current) op.delete(kvKeys.ssoUserIdentity(current.user, issuer, subject));
    await withLockRetry(() => op.commit());
  }

  async listIdentitiesOfUser(userId: string): Promise<SsoIdentityRecord[]> {
    const out: SsoIdentityRecord[] = [];
    for await (const e of this.kv.list({ prefix: kvKeys.ssoUserIdentityPrefix(userId) })) {
      const identity = await this.getIdentity(e.key[2] as string, e.key[3] as string);
      if (identity?.user === userId) out.push(identity);
    }
    return out;
  }

  async markManaged(membership: SsoManagedMembership): Promise<void> {
    await withLockRetry(() =>
      this.kv.set(kvKeys.ssoManaged(membership.org, membership.user), membership)
    );
  }

  async getManaged(orgId: string, userId: string): Promise<SsoManagedMembership | undefined> {
    const entry = await this.kv.get<SsoManagedMembership>(kvKeys.ssoManaged(orgId, userId));
    return entry.value ?? undefined;
  }

  async unmarkManaged(orgId: string, userId: string): Promise<void> {
    await withLockRetry(() => this.kv.delete(kvKeys.ssoManaged(orgId, userId)));
  }

  async createFlow(flow: SsoFlowRecord): Promise<void> {
    const expireIn = Math.max(1, Date.parse(flow.expires) - Date.now());
    await withLockRetry(() => this.kv.set(kvKeys.ssoFlow(flow.hash), flow, { expireIn }));
  }

  async getFlow(hash: string): Promise<SsoFlowRecord | undefined> {
    return (await this.kv.get<SsoFlowRecord>(kvKeys.ssoFlow(hash))).value ?? undefined;
  }

  takeFlow(hash: string): Promise<SsoFlowRecord | undefined> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<SsoFlowRecord>(kvKeys.ssoFlow(hash));
        if (!current.value) return undefined;
        const result = await this.kv.atomic().check(current)
          .delete(kvKeys.ssoFlow(hash))
          .commit();
        if (result.ok) return current.value;
      }
    });
  }

  /** Managed marks are deleted in batches: an organization may have more than one commit holds. */
  async #forgetManaged(orgId: string): Promise<void> {
    const keys: Deno.KvKey[] = [];
    for await (const e of this.kv.list({ prefix: kvKeys.ssoManagedPrefix(orgId) })) {
      keys.push(e.key);
    }
    for (let i = 0; i < keys.length; i += 500) {
      const op = this.kv.atomic();
      for (const key of keys.slice(i, i + 500)) op.delete(key);
      await withLockRetry(() => op.commit());
    }
  }

  async #values<T>(prefix: Deno.KvKey): Promise<T[]> {
    const out: T[] = [];
    for await (const e of this.kv.list<T>({ prefix })) out.push(e.value);
    return out;
  }
}
