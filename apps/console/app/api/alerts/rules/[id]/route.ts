import { alertRuleInputSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRule } from "@/modules/alerts/lib/list-rules";
import { deleteRule, setRuleEnabled, updateRule } from "@/modules/alerts/lib/save-rule";
import { ruleEnabledSchema } from "@/modules/alerts/types/alerts";
import { alertRuleSchema } from "@/modules/alerts/types/api";

const params = z.object({ id: z.string() });
const ruleResponse = z.object({ rule: alertRuleSchema });

export const GET = orgRoute({ summary: "One alert rule", tag: "Alerts", params, response: ruleResponse }, async ({ context, params }) => ({
  rule: await getRule(database(), context.orgId, params.id),
}));

/** The whole rule, as the editor holds it. */
export const PUT = orgRoute(
  {
    summary: "Replace an alert rule",
    tag: "Alerts",
    params,
    body: alertRuleInputSchema,
    permission: { alertRule: ["update"] },
    response: ruleResponse,
  },
  async ({ context, params, body }) => ({ rule: await updateRule(database(), context, params.id, body) }),
);

/** `{ enabled }`: the switch on the rules list. */
export const PATCH = orgRoute(
  {
    summary: "Turn an alert rule on or off",
    tag: "Alerts",
    params,
    body: ruleEnabledSchema,
    permission: { alertRule: ["update"] },
    response: ruleResponse,
  },
  async ({ context, params, body }) => ({ rule: await setRuleEnabled(database(), context, params.id, body.enabled) }),
);

export const DELETE = orgRoute(
  {
    summary: "Delete a custom alert rule",
    description: "A default rule cannot be deleted (409): turn it off.",
    tag: "Alerts",
    params,
    permission: { alertRule: ["delete"] },
    response: z.object({ deleted: z.string() }),
    errors: [409],
  },
  async ({ context, params }) => deleteRule(database(), context, params.id),
);
