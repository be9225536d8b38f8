import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { applyRecommendation } from "@/modules/recommendations/lib/apply-recommendation";
import { recommendationSchema } from "@/modules/recommendations/types/api";

export const POST = orgRoute(
  { summary: "Apply a recommendation", description: "Saves the next version of the server's own policy (or creates and assigns one). 409 when applied already or not a policy change; 422 when the merged policy would be invalid.",
    tag: "Recommendations", params: z.object({ id: z.string() }), permission: { recommendation: ["apply"] }, response: z.object({ recommendation: recommendationSchema }), errors: [409, 422] },
  async ({ context, params }) => ({ recommendation: await applyRecommendation(database(), context, params.id) }),
);
