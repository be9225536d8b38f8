import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { applyRecommendation } from "@/modules/recommendations/lib/apply-recommendation";

export const POST = orgRoute({ params: z.object({ id: z.string() }), permission: { recommendation: ["apply"] } }, async ({ context, params }) => ({
  recommendation: await applyRecommendation(database(), context, params.id),
}));
