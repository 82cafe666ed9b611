/**
 * Secrets the gateway must read back (a TOTP enrolment's shared secret, a webhook signing
 * secret) sealed at rest with the
 * instance's key (`SOVRA_SECRET_KEY`): AES-256-GCM through Web Crypto, a fresh 96-bit nonce per
 * seal, the key derived from the instance key by HKDF-SHA-256 with the purpose as its info (one
 * instance key, an independent key per purpose), and what the secret belongs to (a user, an
 * organization) bound as its associated data: a sealed value copied to another's record does not
 * open. A sealed value is `sealed:v1:` and the
 * base64url of nonce ‖ ciphertext ‖ tag; anything else is a value stored before a key was set,
 * read as it is. Tampering, or another key, fails the open.
 */
const PREFIX = "sealed:v1:";
const NONCE_BYTES = 12;

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

export class SecretBox {
  #key: Promise<CryptoKey>;

  /** `instanceKey`: at least 32 random bytes; `purpose`: what this box's key is for. */
  constructor(instanceKey: Uint8Array, purpose: string) {
    const raw = new Uint8Array(instanceKey);
    this.#key = crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: new TextEncoder().encode(`sovra ${purpose}`),
        },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      )
    );
  }

  /** `plain` sealed for `owner` (the user or organization the secret belongs to). */
  async seal(plain: string, owner: string): Promise<string> {
    const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: nonce, additionalData: new TextEncoder().encode(owner) },
        await this.#key,
        new TextEncoder().encode(plain),
      ),
    );
    const out = new Uint8Array(NONCE_BYTES + sealed.length);
    out.set(nonce);
    out.set(sealed, NONCE_BYTES);
    return PREFIX + out.toBase64({ alphabet: "base64url", omitPadding: true });
  }

  /** The value sealed in `stored` for `owner`; a value not sealed is returned as it is. */
  async open(stored: string, owner: string): Promise<string> {
    if (!isSealed(stored)) return stored;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = Uint8Array.fromBase64(stored.slice(PREFIX.length), { alphabet: "base64url" });
    } catch {
      throw new SecretBoxError("A sealed secret is malformed.");
    }
    try {
      const plain = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: bytes.subarray(0, NONCE_BYTES),
          additionalData: new TextEncoder().encode(owner),
        },
        await this.#key,
        bytes.subarray(NONCE_BYTES),
      );
      return new TextDecoder().decode(plain);
    } catch {
      throw new SecretBoxError(
        "A sealed secret does not open with SOVRA_SECRET_KEY: it was sealed with another key, for another owner, or altered.",
      );
    }
  }
}

/** `plain` as it is stored: sealed when the instance has a key (`box`), else as it is. */
export async function sealStored(
  box: SecretBox | undefined,
  plain: string,
  owner: string,
): Promise<string> {
  return box ? await box.seal(plain, owner) : plain;
}

/** A stored value opened: sealed with `box`'s key, or stored before a key was set. */
export async function openStored(
  box: SecretBox | undefined,
  stored: string,
  owner: string,
): Promise<string> {
  if (box) return await box.open(stored, owner);
  if (isSealed(stored)) {
    throw new SecretBoxError(
      "A secret is sealed, but SOVRA_SECRET_KEY is not set: start with the key it was sealed with.",
    );
  }
  return stored;
}

/** The box of `purpose` under the configured instance key, if there is one. */
export function secretBoxFor(key: Uint8Array | undefined, purpose: string): SecretBox | undefined {
  return key ? new SecretBox(key, purpose) : undefined;
}
