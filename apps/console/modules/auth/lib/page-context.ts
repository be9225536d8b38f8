import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { OrgContext } from "../types/context";
import { resolveOrgContext } from "./org-context";

/**
 * For server components under (app): signed-out users go to sign-in, org-less users to
 * onboarding, members held back by their organisation's MFA or SSO requirement to what meets it.
 */
export async function pageContext(): Promise<OrgContext> {
  const result = await resolveOrgContext(await headers());
  if (result.kind === "signed-out") redirect("/sign-in");
  if (result.kind === "no-organisation") redirect("/onboarding");
  if (result.kind === "mfa-required") redirect(`/account/security?required=${encodeURIComponent(result.orgName)}`);
  if (result.kind === "sso-required") redirect(`/sign-in/sso?organization=${encodeURIComponent(result.orgSlug)}&required=1`);
  return result.context;
}
