import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateSecretsKey, isSealed, SecretsOpener, SecretsSealer, secretsBinding } from "./sealed-secrets.js";

describe("sealed channel secrets", () => {
  const opener = new SecretsOpener(generateSecretsKey().privateKeyPem);
  const sealer = new SecretsSealer(opener.publicKey);
  const binding = secretsBinding("org-a", "6f1c0b52-8d7e-4b8a-9c1d-2e3f4a5b6c7d");
  const secrets = { password: "hunter2", webhookUrl: "https://hooks.slack.com/services/T000/B000/XXXX" };

  it("opens what it sealed, with a fresh ciphertext each time and no plaintext in it", () => {
    const a = sealer.seal(binding, secrets);
    const b = sealer.seal(binding, secrets);
    assert.ok(isSealed(a));
    assert.equal(a.kid, opener.kid);
    assert.notEqual(a.ct, b.ct);
    assert.notEqual(a.epk, b.epk);
    assert.doesNotMatch(JSON.stringify(a), /hunter2|hooks\.slack/);
    assert.deepEqual(opener.open(binding, a), secrets);
    assert.deepEqual(opener.open(binding, b), secrets);
  });

  it("refuses another binding, an altered ciphertext, another key, and an unknown shape", () => {
    const sealed = sealer.seal(binding, secrets);
    assert.throws(() => opener.open(secretsBinding("org-b", "6f1c0b52-8d7e-4b8a-9c1d-2e3f4a5b6c7d"), sealed), /do not open/);
    const ct = Buffer.from(sealed.ct, "base64");
    ct[0]! ^= 1;
    assert.throws(() => opener.open(binding, { ...sealed, ct: ct.toString("base64") }), /altered/);
    const stranger = new SecretsOpener(generateSecretsKey().privateKeyPem);
    assert.throws(
      () => stranger.open(binding, sealed),
      new RegExp(`sealed to key ${sealed.kid} but this worker holds key ${stranger.kid}`),
    );
    assert.throws(() => opener.open(binding, { ...sealed, alg: "ROT13" }), /not a sealed value this version understands/);
  });

  it("passes secrets stored before sealing existed through unchanged", () => {
    assert.equal(isSealed({ password: "x" }), false);
    assert.deepEqual(opener.open(binding, { password: "x" }), { password: "x" });
  });

  it("accepts only X25519 keys", () => {
    assert.throws(() => new SecretsOpener("not a key"), /./);
    assert.throws(() => new SecretsSealer(Buffer.from("nope").toString("base64")), /./);
  });
});
