import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createApiToken, listApiTokens } from "@/modules/api-tokens/lib/api-tokens";
import { apiTokenSummary, createApiTokenInput } from "@/modules/api-tokens/types/api-token";

export const GET = orgRoute(
  {
    summary: "List API tokens",
    description: "Never a secret: the first characters, role, status, expiry and last use.",
    tag: "API tokens",
    response: z.object({ tokens: z.array(apiTokenSummary) }),
  },
  async ({ context }) => ({ tokens: await listApiTokens(context.orgId) }),
);

/** 201 with the token's secret: the only time it is ever answered. */
export const POST = orgRoute(
  {
    summary: "Create an API token",
    description:
      "The secret is answered this once; only its hash is kept. A token acts for its creator with the lesser of its role and theirs; viewers create viewer tokens only.",
    tag: "API tokens",
    body: createApiTokenInput,
    permission: { apiKey: ["create"] },
    status: 201,
    response: z.object({
      token: apiTokenSummary.extend({ secret: z.string().meta({ description: "The token: answered this once only" }) }),
    }),
  },
  async ({ context, body }) => ({ token: await createApiToken(database(), context, body) }),
);
