import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRecommendations } from "@/modules/recommendations/lib/list-recommendations";
import { recommendationSchema } from "@/modules/recommendations/types/api";

export const GET = orgRoute(
  {
    summary: "List recommendations",
    description:
      "What, why (evidence), the predicted effect and its confidence, status, and the realised effect once measured (docs/recommendations.md).",
    tag: "Recommendations",
    query: z.object({ serverId: z.uuid().optional() }),
    response: z.object({ recommendations: z.array(recommendationSchema) }),
  },
  async ({ context, query }) => ({ recommendations: await listRecommendations(database(), context.orgId, { serverId: query.serverId }) }),
);
