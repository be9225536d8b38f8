import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { applyRecommendation } from "@/modules/recommendations/lib/apply-recommendation";
import { recommendationSchema } from "@/modules/recommendations/types/api";
import { deliveryInput } from "@/modules/rollouts/types/rollout";

/** Applies the recommendation; an optional body { delivery: { mode: "rollout", plan? } } guards it as a rollout. */
export const POST = orgRoute(
  {
    summary: "Apply a recommendation",
    description:
      "Saves the next version of the server's own policy (or creates and assigns one), at once or, with `delivery`, as a one-server rollout guarded against the servers not changed. 409 when applied already or not a policy change; 422 when the merged policy would be invalid.",
    tag: "Recommendations",
    params: z.object({ id: z.string() }),
    body: z.object({ delivery: deliveryInput.optional() }),
    permission: { recommendation: ["apply"] },
    response: z.object({ recommendation: recommendationSchema }),
    errors: [409, 422],
  },
  async ({ context, params, body }) => ({
    recommendation: await applyRecommendation(database(), context, params.id, new Date(), body.delivery),
  }),
);
