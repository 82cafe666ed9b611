/**
 * Server-side SigV4 check, written apart from the client signer (node:crypto, not aws4fetch):
 * recomputes the signature from the `SignedHeaders` the client named, the wire path encoded
 * once more (non-S3 rule) and the body hash. Answers with Bedrock's auth-layer error names.
 */
import { createHash, createHmac } from "node:crypto";

export interface SimCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
  region: string;
}

export type SigV4Result =
  | { ok: true }
  | {
    ok: false;
    errorType:
      | "InvalidSignatureException"
      | "UnrecognizedClientException"
      | "IncompleteSignatureException";
    message: string;
  };

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

export function verifySigV4(
  method: string,
  url: URL,
  headers: Headers,
  body: Uint8Array,
  credentials: SimCredentials,
): SigV4Result {
  const match = AUTH.exec(headers.get("authorization") ?? "");
  if (match === null) {
    return {
      ok: false,
      errorType: "IncompleteSignatureException",
      message: "Authorization header requires a valid SigV4 signature.",
    };
  }
  const [, accessKeyId, date, region, service, signedHeaders, signature] =
    match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) {
    return {
      ok: false,
      errorType: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  if ((credentials.sessionToken ?? null) !== headers.get("x-amz-security-token")) {
    return {
      ok: false,
      errorType: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  const amzDate = headers.get("x-amz-date") ?? "";
  if (service !== "bedrock" || region !== credentials.region || !amzDate.startsWith(date ?? "-")) {
    return {
      ok: false,
      errorType: "InvalidSignatureException",
      message: "Credential should be scoped to a valid region and service.",
    };
  }
  const names = (signedHeaders ?? "").split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) {
    return {
      ok: false,
      errorType: "InvalidSignatureException",
      message: "Host and x-amz-date must be signed.",
    };
  }
  const bodyHash = createHash("sha256").update(body).digest("hex");
  const claimed = headers.get("x-amz-content-sha256");
  if (claimed !== null && claimed !== bodyHash) {
    return {
      ok: false,
      errorType: "InvalidSignatureException",
      message: "The provided x-amz-content-sha256 does not match.",
    };
  }
  const canonicalUri = url.pathname.split("/").map((s) => encodeRfc3986(encodeURIComponent(s)))
    .join("/");
  const canonicalHeaders = names.map((n) =>
    `${n}:${(headers.get(n) ?? "").trim().replace(/\s+/g, " ")}\n`
  ).join("");
  const canonicalRequest = [method, canonicalUri, "", canonicalHeaders, signedHeaders, bodyHash]
    .join("\n");
  const scope = `${date}/${region}/bedrock/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  let key: Buffer = createHmac("sha256", `AWS4${credentials.secretAccessKey}`).update(date ?? "")
    .digest();
  for (const part of [region ?? "", "bedrock", "aws4_request"]) {
    key = createHmac("sha256", key).update(part).digest();
  }
  const expected = createHmac("sha256", key).update(stringToSign).digest("hex");
  if (expected !== signature) {
    return {
      ok: false,
      errorType: "InvalidSignatureException",
      message: "The request signature we calculated does not match the signature you provided.",
    };
  }
  return { ok: true };
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function encodeRfc3986(text: string): string {
  return text.replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}
