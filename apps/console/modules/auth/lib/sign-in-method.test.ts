import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeSignInMethod, isSsoMethod, signInMethodFor } from "./sign-in-method";

describe("how a session was opened", () => {
  it("is named after the endpoint that opened it", () => {
    assert.equal(signInMethodFor("/sign-in/email"), "password");
    assert.equal(signInMethodFor("/two-factor/verify-totp"), "password+totp");
    assert.equal(signInMethodFor("/two-factor/verify-backup-code"), "password+recovery-code");
    assert.equal(signInMethodFor("/verify-email"), "email-link");
    assert.equal(signInMethodFor("/sso/callback/:providerId", { providerId: "org-acme" }), "sso:org-acme");
    assert.equal(signInMethodFor("/two-factor/enable"), null, "re-issued sessions keep their method");
    assert.equal(signInMethodFor(undefined), null);
  });

  it("tells single sign-on apart, per provider", () => {
    assert.equal(isSsoMethod("sso:org-acme"), true);
    assert.equal(isSsoMethod("sso:org-acme", "org-acme"), true);
    assert.equal(isSsoMethod("sso:org-acme", "org-other"), false);
    assert.equal(isSsoMethod("password"), false);
    assert.equal(isSsoMethod(null), false);
    assert.equal(describeSignInMethod("password+totp"), "password and authenticator code");
  });
});
