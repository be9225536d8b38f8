// Shared by the browser (the sign-up form sends it) and the server (invitation-proof.ts reads it).
export const INVITATION_PROOF_HEADER = "x-spindle-invitation-proof";
