import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { dismissRecommendation } from "@/modules/recommendations/lib/set-status";
import { recommendationSchema } from "@/modules/recommendations/types/api";

export const POST = orgRoute(
  {
    summary: "Dismiss a recommendation",
    tag: "Recommendations",
    params: z.object({ id: z.string() }),
    permission: { recommendation: ["dismiss"] },
    response: z.object({ recommendation: recommendationSchema }),
    errors: [409],
  },
  async ({ context, params }) => ({ recommendation: await dismissRecommendation(database(), context, params.id) }),
);
