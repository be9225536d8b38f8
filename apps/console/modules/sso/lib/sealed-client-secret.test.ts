import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ClientSecretBox, clientSecretBinding, openOidcConfig, sealOidcConfig } from "./sealed-client-secret";

const box = new ClientSecretBox("a".repeat(40));

describe("SSO client secrets at rest", () => {
  it("stores no secret in the clear and opens for the same provider", () => {
    const stored = sealOidcConfig(box, "org-acme", JSON.stringify({ clientId: "spindle", clientSecret: "s3cret-value" }));
    assert.doesNotMatch(stored, /s3cret-value/);
    assert.equal(JSON.parse(stored).clientId, "spindle");
    assert.deepEqual(JSON.parse(openOidcConfig(box, "org-acme", stored)), { clientId: "spindle", clientSecret: "s3cret-value" });
  });

  it("refuses a secret copied to another provider, altered, or sealed under another auth secret", () => {
    const sealed = box.seal(clientSecretBinding("org-acme"), "s3cret");
    assert.throws(() => box.open(clientSecretBinding("org-other"), sealed), /belongs to another provider/);
    const altered = { ...sealed, ct: Buffer.from("x".repeat(40)).toString("base64") };
    assert.throws(() => box.open(clientSecretBinding("org-acme"), altered), /altered/);
    assert.throws(() => new ClientSecretBox("b".repeat(40)).open(clientSecretBinding("org-acme"), sealed), /another BETTER_AUTH_SECRET/);
    assert.throws(() => box.open(clientSecretBinding("org-acme"), "plain"), /not a sealed value/);
  });

  it("leaves a configuration without a client secret as it is", () => {
    const json = JSON.stringify({ clientId: "spindle", tokenEndpointAuthentication: "private_key_jwt" });
    assert.equal(openOidcConfig(box, "p", sealOidcConfig(box, "p", json)), json);
  });
});
