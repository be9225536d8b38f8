import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { applyRecommendation } from "@/modules/recommendations/lib/apply-recommendation";
import { deliveryInput } from "@/modules/rollouts/types/rollout";

/** Applies the recommendation; an optional body { delivery: { mode: "rollout", plan? } } guards it as a rollout. */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), body: z.object({ delivery: deliveryInput.optional() }), permission: { recommendation: ["apply"] } },
  async ({ context, params, body }) => ({ recommendation: await applyRecommendation(database(), context, params.id, new Date(), body.delivery) }),
);
