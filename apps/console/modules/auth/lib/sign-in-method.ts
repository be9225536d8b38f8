// How a session was opened, from the better-auth endpoint that opened it. Stored on the session
// (sessions.sign_in_method): an organisation's MFA and SSO requirements are judged on it, and
// the user's sessions list shows it.

export type SignInMethod = "password" | "password+totp" | "password+recovery-code" | "email-link" | `sso:${string}`;

/** The method for a session created by `path`; null when the endpoint re-issues an existing session. */
export function signInMethodFor(path: string | undefined, params?: Record<string, unknown>): SignInMethod | null {
  switch (path) {
    case "/sign-in/email":
    case "/sign-up/email":
      return "password";
    case "/two-factor/verify-totp":
      return "password+totp";
    case "/two-factor/verify-backup-code":
      return "password+recovery-code";
    case "/verify-email":
      return "email-link";
    case "/sso/callback/:providerId":
      return typeof params?.providerId === "string" ? `sso:${params.providerId}` : null;
    default:
      return null;
  }
}

export function isSsoMethod(method: string | null | undefined, providerId?: string): boolean {
  if (!method?.startsWith("sso:")) return false;
  return providerId === undefined || method === `sso:${providerId}`;
}

/** In words, for the sessions list and the audit log. */
export function describeSignInMethod(method: string | null | undefined): string {
  if (!method) return "unknown";
  if (method === "password") return "password";
  if (method === "password+totp") return "password and authenticator code";
  if (method === "password+recovery-code") return "password and recovery code";
  if (method === "email-link") return "e-mail confirmation link";
  if (method.startsWith("sso:")) return "single sign-on";
  return method;
}
