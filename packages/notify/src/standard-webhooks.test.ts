import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { generateWebhookSigningSecret, webhookSigningSecretSchema } from "./channel-kinds.js";
import { standardWebhookHeaders, verifyStandardWebhook } from "./standard-webhooks.js";

const secret = `whsec_${Buffer.from("a 24-byte test key......").toString("base64")}`;
const body = '{"type":"spindle.alert.firing","data":{"x":1}}';
const now = new Date("2026-11-23T10:00:00Z");

describe("Standard Webhooks signing", () => {
  it("signs id.timestamp.body with HMAC-SHA256 under the base64-decoded key, as the spec defines", () => {
    const headers = standardWebhookHeaders(secret, "msg_1", body, now);
    // Recomputed here from the specification, not with the code under test.
    const expected = createHmac("sha256", Buffer.from("a 24-byte test key......"))
      .update(`msg_1.${now.getTime() / 1000}.${body}`)
      .digest("base64");
    assert.deepEqual(headers, { "webhook-id": "msg_1", "webhook-timestamp": "1795428000", "webhook-signature": `v1,${expected}` });
  });

  it("verifies its own signature and refuses a changed body, id, secret or stale timestamp", () => {
    const headers = standardWebhookHeaders(secret, "msg_1", body, now);
    assert.equal(verifyStandardWebhook(secret, headers, body, { now }), true);
    assert.equal(verifyStandardWebhook(secret, headers, body.replace("1", "2"), { now }), false);
    assert.equal(verifyStandardWebhook(secret, { ...headers, "webhook-id": "msg_2" }, body, { now }), false);
    assert.equal(verifyStandardWebhook(generateWebhookSigningSecret(), headers, body, { now }), false);
    assert.equal(verifyStandardWebhook(secret, headers, body, { now: new Date(now.getTime() + 301_000) }), false);
  });

  it("accepts any one of several space-separated signatures (secret rotation)", () => {
    const headers = standardWebhookHeaders(secret, "msg_1", body, now);
    const rotated = { ...headers, "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")} ${headers["webhook-signature"]}` };
    assert.equal(verifyStandardWebhook(secret, rotated, body, { now }), true);
  });

  it("generates whsec_ secrets of 32 random bytes that its own schema accepts", () => {
    const generated = generateWebhookSigningSecret();
    assert.equal(Buffer.from(generated.slice(6), "base64").length, 32);
    assert.ok(webhookSigningSecretSchema.safeParse(generated).success);
    assert.notEqual(generated, generateWebhookSigningSecret());
  });
});
