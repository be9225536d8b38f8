import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { groupSecret, totpSecretOf } from "./totp-uri";

describe("the authenticator setup key", () => {
  it("is read from the otpauth URI and shown in groups of four", () => {
    const secret = totpSecretOf("otpauth://totp/Spindle:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSW&issuer=Spindle&digits=6&period=30");
    assert.equal(secret, "JBSWY3DPEHPK3PXPJBSW");
    assert.equal(groupSecret(secret), "JBSW Y3DP EHPK 3PXP JBSW");
    assert.equal(totpSecretOf("not a uri"), "");
  });
});
