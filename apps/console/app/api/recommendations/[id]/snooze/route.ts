import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { snoozeRecommendation } from "@/modules/recommendations/lib/set-status";
import { snoozeInput } from "@/modules/recommendations/types/recommendation";

export const POST = orgRoute(
  { params: z.object({ id: z.string() }), body: snoozeInput, permission: { recommendation: ["dismiss"] } },
  async ({ context, params, body }) => ({ recommendation: await snoozeRecommendation(database(), context, params.id, body) }),
);
