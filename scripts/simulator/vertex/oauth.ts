/**
 * The simulator's OAuth2 token endpoint: a freshly generated RSA key pair makes the trusted
 * service account; a JWT-bearer grant is verified like Google does (RS256 with the public key,
 * `aud` = the token URL, issuer = client_email, cloud-platform scope, lifetime ≤ 1 h).
 */
import { exportPKCS8, generateKeyPair, jwtVerify } from "jose";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

export interface OAuthServer {
  serviceAccountJson: string;
  handleToken(req: Request, tokenUrl: string): Promise<Response>;
  /** True for a bearer token issued here and not expired or revoked. */
  accepts(token: string): boolean;
  revokeAll(): void;
  /** Number of tokens issued so far. */
  readonly issued: number;
}

export async function createOAuthServer(): Promise<OAuthServer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const clientEmail = "sovra-sim@sim-project.iam.gserviceaccount.com";
  const serviceAccountJson = JSON.stringify({
    type: "service_account",
    project_id: "sim-project",
    private_key_id: "sim-key-1",
    private_key: await exportPKCS8(privateKey),
    client_email: clientEmail,
    token_uri: "https://oauth2.googleapis.com/token",
  });
  const tokens = new Map<string, number>();
  let issued = 0;
  const denied = (description: string) =>
    Response.json({ error: "invalid_grant", error_description: description }, { status: 400 });
  return {
    serviceAccountJson,
    get issued() {
      return issued;
    },
    accepts: (token) => (tokens.get(token) ?? 0) > Date.now(),
    revokeAll: () => tokens.clear(),
    async handleToken(req, tokenUrl) {
      const form = new URLSearchParams(await req.text());
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
      }
      let payload;
      try {
        ({ payload } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
          algorithms: ["RS256"],
          audience: tokenUrl,
          issuer: clientEmail,
        }));
      } catch {
        return denied("Invalid JWT Signature.");
      }
      if (payload.scope !== SCOPE) return denied("Invalid OAuth scope.");
      if (
        payload.iat === undefined || payload.exp === undefined || payload.exp - payload.iat > 3600
      ) {
        return denied("Invalid JWT: Token must be a short-lived token (60 minutes).");
      }
      const token = `ya29.sim-${crypto.randomUUID()}`;
      tokens.set(token, Date.now() + 3600_000);
      issued++;
      return Response.json({ access_token: token, expires_in: 3599, token_type: "Bearer" });
    },
  };
}
