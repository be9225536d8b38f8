// The invitation link we e-mail carries a proof that only the mailbox it was sent to has seen
// (an HMAC of the invitation and the invited address under BETTER_AUTH_SECRET). Signing up
// through that link proves the address, so the invitee is not sent a second, verification mail.
// The link shown to the inviter on the members page has no proof: a sign-up through it verifies
// the address by mail as usual.
import { createHmac, timingSafeEqual } from "node:crypto";

export { INVITATION_PROOF_HEADER } from "./invitation-proof-header";

export function invitationProof(secret: string, invitationId: string, email: string): string {
  return createHmac("sha256", secret).update(`spindle invitation v1\n${invitationId}\n${email.trim().toLowerCase()}`).digest("base64url");
}

export function checkInvitationProof(secret: string, invitationId: string, email: string, proof: string): boolean {
  const expected = Buffer.from(invitationProof(secret, invitationId, email));
  const given = Buffer.from(proof);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The header value the sign-up form sends: "<invitation id>.<proof>". */
export function parseProofHeader(value: string | null | undefined): { invitationId: string; proof: string } | null {
  const match = /^([A-Za-z0-9_-]{1,100})\.([A-Za-z0-9_-]{43})$/.exec(value ?? "");
  return match ? { invitationId: match[1]!, proof: match[2]! } : null;
}
