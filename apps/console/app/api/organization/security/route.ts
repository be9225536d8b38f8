import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { getOrganisationSecurity, setRequireMfa } from "@/modules/sso/lib/sso-settings";
import { requireMfaInput } from "@/modules/sso/types/sso";

/** Whether MFA is required, and the single sign-on settings (never the client secret). */
export const GET = orgRoute({}, async ({ context }) => ({ security: await getOrganisationSecurity(context.orgId) }));

/** Owners only: require two-factor authentication of every member who signs in with a password. */
export const PATCH = orgRoute({ body: requireMfaInput, permission: { security: ["update"] } }, async ({ context, body }) =>
  setRequireMfa(database(), context, body.requireMfa));
