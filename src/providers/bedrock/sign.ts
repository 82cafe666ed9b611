/**
 * SigV4 for Bedrock Runtime via aws4fetch: service `bedrock` (not `bedrock-runtime`), the
 * region from the catalog, `x-amz-security-token` with temporary credentials. The canonical
 * URI is the wire path percent-encoded once more (`%3A` in a model id → `%253A`), which is
 * aws4fetch's default for every service but S3.
 */
import { AwsV4Signer } from "aws4fetch";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Derived signing keys, cached across requests (in memory only). */
const keyCache = new Map<string, ArrayBuffer>();

export async function signBedrockRequest(input: {
  url: string;
  body: string;
  region: string;
  credentials: AwsCredentials;
  headers: Record<string, string>;
  /** `YYYYMMDD'T'HHMMSS'Z'`; now when absent (tests pin it). */
  datetime?: string;
}): Promise<Headers> {
  const signer = new AwsV4Signer({
    method: "POST",
    url: input.url,
    headers: input.headers,
    body: input.body,
    accessKeyId: input.credentials.accessKeyId,
    secretAccessKey: input.credentials.secretAccessKey,
    ...(input.credentials.sessionToken === undefined
      ? {}
      : { sessionToken: input.credentials.sessionToken }),
    service: "bedrock",
    region: input.region,
    cache: keyCache,
    // Sign content-type too (as botocore and the AWS JS SDK do); only headers set here are signed.
    allHeaders: true,
    ...(input.datetime === undefined ? {} : { datetime: input.datetime }),
  });
  const signed = await signer.sign();
  return signed.headers;
}
