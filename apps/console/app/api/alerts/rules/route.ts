import { alertRuleInputSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRules } from "@/modules/alerts/lib/list-rules";
import { createRule } from "@/modules/alerts/lib/save-rule";
import { alertRuleSchema } from "@/modules/alerts/types/api";

export const GET = orgRoute(
  {
    summary: "List alert rules",
    description: "The defaults every organisation gets first, then custom rules.",
    tag: "Alerts",
    response: z.object({ rules: z.array(alertRuleSchema), defaultsSeeded: z.boolean() }),
  },
  async ({ context }) => listRules(database(), context.orgId),
);

export const POST = orgRoute(
  {
    summary: "Create an alert rule",
    tag: "Alerts",
    body: alertRuleInputSchema,
    permission: { alertRule: ["create"] },
    status: 201,
    response: z.object({ rule: alertRuleSchema }),
  },
  async ({ context, body }) => ({ rule: await createRule(database(), context, body) }),
);
