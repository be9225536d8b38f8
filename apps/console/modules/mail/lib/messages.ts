// Every message the console sends, in words. Links are absolute (the console's public URL).
import type { OutgoingMail } from "../types/mail";
import { renderMessage } from "./render";

const notYou = "If this was not you, you can ignore this message; nothing changes until the link is used.";

export function verifyEmailMessage(to: string, name: string, url: string, hours: number): OutgoingMail {
  return renderMessage({
    kind: "verify-email",
    to,
    subject: "Confirm your e-mail address for Spindle",
    lines: [`Hello ${name},`, "Confirm that this is your e-mail address to finish creating your Spindle account."],
    action: { label: "Confirm my address", url },
    footer: [`The link works once and expires in ${hours} hours.`, notYou],
  });
}

/** Sent instead of a verification when someone signs up with an address that has an account. */
export function accountExistsMessage(to: string, signInUrl: string, resetUrl: string): OutgoingMail {
  return renderMessage({
    kind: "account-exists",
    to,
    subject: "You already have a Spindle account",
    lines: [
      "Someone (probably you) tried to create a Spindle account with this address, but it already has one.",
      `Sign in at ${signInUrl}, or if you forgot your password, reset it at ${resetUrl}.`,
    ],
    footer: ["If this was not you, no action is needed: nobody gained access."],
  });
}

export function resetPasswordMessage(to: string, name: string, url: string, minutes: number): OutgoingMail {
  return renderMessage({
    kind: "reset-password",
    to,
    subject: "Reset your Spindle password",
    lines: [`Hello ${name},`, "Someone asked to reset the password of your Spindle account. Choose a new one here:"],
    action: { label: "Choose a new password", url },
    footer: [`The link works once and expires in ${minutes} minutes. Resetting signs out every session.`, notYou],
  });
}

export function passwordChangedMessage(to: string, name: string, signInUrl: string): OutgoingMail {
  return renderMessage({
    kind: "password-changed",
    to,
    subject: "Your Spindle password was changed",
    lines: [`Hello ${name},`, "The password of your Spindle account was just changed, and every session was signed out."],
    action: { label: "Sign in", url: signInUrl },
    footer: ["If this was not you, reset your password at once and tell your organisation's owner."],
  });
}

export function invitationMessage(
  to: string,
  inviter: string,
  organisation: string,
  role: string,
  url: string,
  days: number,
): OutgoingMail {
  return renderMessage({
    kind: "invitation",
    to,
    subject: `${inviter} invited you to ${organisation} on Spindle`,
    lines: [`${inviter} invited you to join ${organisation} on Spindle as ${role}.`],
    action: { label: `Join ${organisation}`, url },
    footer: [`The invitation expires in ${days} days.`, "If you did not expect this invitation, you can ignore it."],
  });
}

export function mfaChangedMessage(to: string, name: string, enabled: boolean, securityUrl: string): OutgoingMail {
  return renderMessage({
    kind: enabled ? "mfa-enabled" : "mfa-disabled",
    to,
    subject: enabled
      ? "Two-factor authentication is on for your Spindle account"
      : "Two-factor authentication was turned off for your Spindle account",
    lines: [
      `Hello ${name},`,
      enabled
        ? "Signing in to Spindle with your password now also asks for a code from your authenticator app. Keep your recovery codes somewhere safe."
        : "Signing in to Spindle with your password no longer asks for a code from your authenticator app.",
    ],
    action: { label: "Review your security settings", url: securityUrl },
    footer: ["If this was not you, reset your password at once and tell your organisation's owner."],
  });
}

export function newSignInMessage(
  to: string,
  name: string,
  details: { at: Date; method: string; address: string | null; userAgent: string | null },
  securityUrl: string,
): OutgoingMail {
  return renderMessage({
    kind: "new-sign-in",
    to,
    subject: "New sign-in to your Spindle account",
    lines: [
      `Hello ${name},`,
      `Your Spindle account was signed in to at ${details.at.toISOString()} (${details.method}), from ${details.address ?? "an unknown address"} with ${details.userAgent ?? "an unknown browser"}.`,
    ],
    action: { label: "Review your sessions", url: securityUrl },
    footer: ["If this was you, nothing needs doing. If not, sign that session out there and reset your password."],
  });
}
