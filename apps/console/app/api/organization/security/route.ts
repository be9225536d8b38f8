import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getOrganisationSecurity, setRequireMfa } from "@/modules/sso/lib/sso-settings";
import { organisationSecurity, requireMfaInput } from "@/modules/sso/types/sso";
import { z } from "zod";

export const GET = orgRoute(
  {
    summary: "The organisation's sign-in requirements",
    description: "Whether MFA is required, and the single sign-on settings (never the client secret).",
    tag: "Security",
    response: z.object({ security: organisationSecurity }),
  },
  async ({ context }) => ({ security: await getOrganisationSecurity(context.orgId) }),
);

export const PATCH = orgRoute(
  {
    summary: "Require two-factor authentication",
    description: "Of every member who signs in with a password. 409 when the owner has not turned it on for their own account.",
    tag: "Security",
    body: requireMfaInput,
    permission: { security: ["update"] },
    response: requireMfaInput,
    errors: [409],
  },
  async ({ context, body }) => setRequireMfa(database(), context, body.requireMfa),
);
