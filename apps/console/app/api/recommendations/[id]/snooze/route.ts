import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { snoozeRecommendation } from "@/modules/recommendations/lib/set-status";
import { recommendationSchema } from "@/modules/recommendations/types/api";
import { snoozeInput } from "@/modules/recommendations/types/recommendation";

export const POST = orgRoute(
  {
    summary: "Snooze a recommendation",
    tag: "Recommendations",
    params: z.object({ id: z.string() }),
    body: snoozeInput,
    permission: { recommendation: ["dismiss"] },
    response: z.object({ recommendation: recommendationSchema }),
    errors: [409],
  },
  async ({ context, params, body }) => ({ recommendation: await snoozeRecommendation(database(), context, params.id, body) }),
);
