"use client";
// The browser side of better-auth. Same origin as the console, so no baseURL is needed.
import { ssoClient } from "@better-auth/sso/client";
import { organizationClient, twoFactorClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";
import { accessControl, roles } from "./access";

export const authClient = createAuthClient({
  plugins: [organizationClient({ ac: accessControl, roles }), twoFactorClient(), ssoClient()],
});

/** better-auth's error codes in words a user can act on. */
export function authErrorMessage(error: { code?: string; message?: string; status?: number } | null | undefined, fallback: string): string {
  switch (error?.code) {
    case "INVALID_EMAIL_OR_PASSWORD":
      return "Wrong email or password.";
    case "EMAIL_NOT_VERIFIED":
      return "Confirm your e-mail address first: we have just sent you a new link.";
    case "INVALID_CODE":
      return "That code is not right. Codes change every 30 seconds: enter the one your app shows now.";
    case "INVALID_BACKUP_CODE":
      return "That recovery code is not right, or it was used already.";
    case "INVALID_PASSWORD":
      return "Wrong password.";
    case "PASSWORD_TOO_SHORT":
      return "The password needs at least 8 characters.";
    case "INVALID_TOKEN":
    case "TOKEN_EXPIRED":
      return "This link has expired or was used already: ask for a new one.";
    default:
      if (error?.status === 429) return "Too many attempts: wait a minute and try again.";
      return error?.message ?? fallback;
  }
}
