import { database } from "@/lib/db";
import { env } from "@/lib/env";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createEnrollmentToken } from "@/modules/enrollment/lib/create-enrollment-token";
import { listEnrollmentTokens } from "@/modules/enrollment/lib/list-enrollment-tokens";
import { createEnrollmentTokenInput } from "@/modules/enrollment/types/enrollment-token";

export const GET = orgRoute({}, async ({ context }) => ({ tokens: await listEnrollmentTokens(database(), context.orgId) }));

export const POST = orgRoute(
  { body: createEnrollmentTokenInput, permission: { enrollmentToken: ["create"] }, status: 201 },
  async ({ context, body }) => ({
    token: await createEnrollmentToken(database(), context, body, { gatewayUrl: env().SPINDLE_GATEWAY_URL }),
  }),
);
