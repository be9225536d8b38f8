import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { createApiToken, listApiTokens } from "@/modules/api-tokens/lib/api-tokens";
import { createApiTokenInput } from "@/modules/api-tokens/types/api-token";

export const GET = orgRoute({}, async ({ context }) => ({ tokens: await listApiTokens(context.orgId) }));

/** 201 with the token's secret: the only time it is ever answered. */
export const POST = orgRoute(
  { body: createApiTokenInput, permission: { apiKey: ["create"] }, status: 201 },
  async ({ context, body }) => ({ token: await createApiToken(database(), context, body) }),
);
