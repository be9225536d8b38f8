import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkInvitationProof, invitationProof, parseProofHeader } from "./invitation-proof";

const secret = "s".repeat(40);

describe("the e-mailed invitation's proof", () => {
  it("holds for the invited address in any case and for nothing else", () => {
    const proof = invitationProof(secret, "inv1", "Bo@Example.com");
    assert.equal(checkInvitationProof(secret, "inv1", "bo@example.com", proof), true);
    assert.equal(checkInvitationProof(secret, "inv1", "eve@example.com", proof), false);
    assert.equal(checkInvitationProof(secret, "inv2", "bo@example.com", proof), false);
    assert.equal(checkInvitationProof("t".repeat(40), "inv1", "bo@example.com", proof), false);
    assert.equal(checkInvitationProof(secret, "inv1", "bo@example.com", "short"), false);
  });

  it("travels as '<invitation>.<proof>' and anything else is ignored", () => {
    const proof = invitationProof(secret, "inv1", "bo@example.com");
    assert.deepEqual(parseProofHeader(`inv1.${proof}`), { invitationId: "inv1", proof });
    assert.equal(parseProofHeader("inv1"), null);
    assert.equal(parseProofHeader(`inv 1.${proof}`), null);
    assert.equal(parseProofHeader(null), null);
  });
});
