import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { revokeApiToken } from "@/modules/api-tokens/lib/api-tokens";

/** Revokes the token (it stays listed, marked revoked); revoking twice is harmless. */
export const DELETE = orgRoute({ params: z.object({ id: z.string() }) }, async ({ context, params }) => ({
  token: await revokeApiToken(database(), context, params.id),
}));
