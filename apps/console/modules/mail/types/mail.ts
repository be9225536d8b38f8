/** What the console mails, one kind per purpose (the X-Spindle-Mail header carries it). */
export type MailKind =
  | "verify-email"
  | "account-exists"
  | "reset-password"
  | "password-changed"
  | "invitation"
  | "mfa-enabled"
  | "mfa-disabled"
  | "new-sign-in";

/** One rendered message, ready for a transport. */
export interface OutgoingMail {
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
}
