import { z } from "zod";
import { database } from "@/lib/db";
import { env } from "@/lib/env";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createEnrollmentToken } from "@/modules/enrollment/lib/create-enrollment-token";
import { listEnrollmentTokens } from "@/modules/enrollment/lib/list-enrollment-tokens";
import { createdEnrollmentTokenSchema, enrollmentTokenSummarySchema } from "@/modules/enrollment/types/api";
import { createEnrollmentTokenInput } from "@/modules/enrollment/types/enrollment-token";

export const GET = orgRoute(
  {
    summary: "List enrolment tokens",
    description: "Never the secret, only its last characters.",
    tag: "Enrolment",
    response: z.object({ tokens: z.array(enrollmentTokenSummarySchema) }),
  },
  async ({ context }) => ({ tokens: await listEnrollmentTokens(database(), context.orgId) }),
);

export const POST = orgRoute(
  {
    summary: "Create an enrolment token",
    description: "The secret and the install one-liners are answered this once.",
    tag: "Enrolment",
    body: createEnrollmentTokenInput,
    permission: { enrollmentToken: ["create"] },
    status: 201,
    response: z.object({ token: createdEnrollmentTokenSchema }),
  },
  async ({ context, body }) => ({
    token: await createEnrollmentToken(database(), context, body, { gatewayUrl: env().SPINDLE_GATEWAY_URL }),
  }),
);
