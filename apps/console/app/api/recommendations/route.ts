import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRecommendations } from "@/modules/recommendations/lib/list-recommendations";

export const GET = orgRoute({ query: z.object({ serverId: z.uuid().optional() }) }, async ({ context, query }) => ({
  recommendations: await listRecommendations(database(), context.orgId, { serverId: query.serverId }),
}));
