// What went wrong in a single sign-on attempt, from the error better-auth's sso plugin puts on
// the redirect back to /sign-in/sso (`error`, `error_description`). Our own refusals carry a
// sentence already (resolve-sso-user.ts); the plugin's codes get one here.
const ours = new Set(["domain_not_allowed", "account_in_other_organisations", "provider_not_configured", "saml_not_enabled"]);

export function ssoErrorMessage(code: string, description?: string): string {
  if (ours.has(code) && description) return description;
  if (code === "invalid_state") return "The single sign-on attempt expired or was started in another browser: try again.";
  if (code === "access_denied") return "The identity provider did not sign you in.";
  const detail = description ? `: ${description.replace(/_/g, " ")}` : "";
  return `Single sign-on did not complete (${code}${detail}). Try again, or ask your organisation's owner to check the identity provider settings.`;
}
