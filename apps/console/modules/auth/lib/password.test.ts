import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hashPassword, verifyPassword } from "./password";

describe("password hashing", () => {
  it("stores an argon2id hash that verifies the password and nothing else", async () => {
    const encoded = await hashPassword("correct horse battery staple");
    assert.match(encoded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await verifyPassword({ hash: encoded, password: "correct horse battery staple" }), true);
    assert.equal(await verifyPassword({ hash: encoded, password: "Correct horse battery staple" }), false);
  });

  it("treats a malformed stored hash as a wrong password", async () => {
    assert.equal(await verifyPassword({ hash: "not-a-hash", password: "x" }), false);
  });
});
