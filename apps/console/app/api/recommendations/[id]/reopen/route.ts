import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { reopenRecommendation } from "@/modules/recommendations/lib/set-status";

export const POST = orgRoute({ params: z.object({ id: z.string() }), permission: { recommendation: ["dismiss"] } }, async ({ context, params }) => ({
  recommendation: await reopenRecommendation(database(), context, params.id),
}));
