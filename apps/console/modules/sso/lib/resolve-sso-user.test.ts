import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { emailInDomain } from "./resolve-sso-user";

describe("the allowed e-mail domain", () => {
  it("matches the domain exactly, in any case, and nothing that merely ends with it", () => {
    assert.equal(emailInDomain("ana@acme.test", "acme.test"), true);
    assert.equal(emailInDomain("Ana@ACME.test", "acme.test"), true);
    assert.equal(emailInDomain("eve@evilacme.test", "acme.test"), false);
    assert.equal(emailInDomain("eve@sub.acme.test", "acme.test"), false);
    assert.equal(emailInDomain("eve@acme.test.evil", "acme.test"), false);
    assert.equal(emailInDomain("acme.test", "acme.test"), false);
  });
});
