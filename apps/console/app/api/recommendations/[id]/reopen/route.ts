import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { reopenRecommendation } from "@/modules/recommendations/lib/set-status";
import { recommendationSchema } from "@/modules/recommendations/types/api";

export const POST = orgRoute(
  {
    summary: "Reopen a dismissed or snoozed recommendation",
    tag: "Recommendations",
    params: z.object({ id: z.string() }),
    permission: { recommendation: ["dismiss"] },
    response: z.object({ recommendation: recommendationSchema }),
    errors: [409],
  },
  async ({ context, params }) => ({ recommendation: await reopenRecommendation(database(), context, params.id) }),
);
