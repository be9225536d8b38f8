import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { revokeApiToken } from "@/modules/api-tokens/lib/api-tokens";
import { apiTokenSummary } from "@/modules/api-tokens/types/api-token";

/** Revokes the token (it stays listed, marked revoked); revoking twice is harmless. */
export const DELETE = orgRoute(
  {
    summary: "Revoke an API token",
    description:
      "Members revoke their own tokens, owners and admins anyone's. It stays listed, marked revoked, and answers 401 from then on.",
    tag: "API tokens",
    params: z.object({ id: z.string() }),
    response: z.object({ token: apiTokenSummary }),
  },
  async ({ context, params }) => ({ token: await revokeApiToken(database(), context, params.id) }),
);
