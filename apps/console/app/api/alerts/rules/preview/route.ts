import { alertRuleInputSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { previewRule } from "@/modules/alerts/lib/preview-rule";
import { rulePreviewSchema } from "@/modules/alerts/types/api";

/** Read-only: the rule in the editor replayed over 7 days; nothing is saved. */
export const POST = orgRoute(
  {
    summary: "Preview an alert rule over the last 7 days",
    description: "Replays the rule on the stored 1-minute aggregates; saves nothing.",
    tag: "Alerts",
    body: alertRuleInputSchema,
    response: z.object({ preview: rulePreviewSchema }),
  },
  async ({ context, body }) => ({ preview: await previewRule(database(), context.orgId, body) }),
);
