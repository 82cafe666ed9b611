import assert from "node:assert/strict";
import { signBedrockRequest } from "../../../src/providers/bedrock/sign.ts";

// Vector from reference/upstreams.md §4.2, cross-checked there with @smithy/signature-v4.
const BODY =
  '{"messages":[{"role":"user","content":[{"text":"Hello"}]}],"inferenceConfig":{"maxTokens":64}}';

Deno.test("signBedrockRequest — double-encodes ':' in the model id (reference vector)", async () => {
  const headers = await signBedrockRequest({
    url:
      "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse",
    body: BODY,
    region: "us-east-1",
    credentials: {
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    },
    headers: { "content-type": "application/json" },
    datetime: "20250101T000000Z",
  });
  assert.equal(
    headers.get("authorization"),
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/bedrock/aws4_request, " +
      "SignedHeaders=content-type;host;x-amz-date, " +
      "Signature=9a0cb9d426720efe62b88b12bcb80d78727c5e5d600e51a16c881ae81e6793ad",
  );
  assert.equal(headers.get("x-amz-date"), "20250101T000000Z");
});

Deno.test("signBedrockRequest — signs the session token when one is set", async () => {
  const headers = await signBedrockRequest({
    url: "https://bedrock-runtime.eu-central-1.amazonaws.com/model/m/converse",
    body: "{}",
    region: "eu-central-1",
    credentials: { accessKeyId: "AKID", secretAccessKey: "s", sessionToken: "tok" },
    headers: { "content-type": "application/json", accept: "application/json" },
  });
  assert.equal(headers.get("x-amz-security-token"), "tok");
  assert.match(
    headers.get("authorization") ?? "",
    /SignedHeaders=accept;content-type;host;x-amz-date;x-amz-security-token,/,
  );
  assert.match(headers.get("authorization") ?? "", /\/eu-central-1\/bedrock\/aws4_request/);
});
