import { alertRuleInputSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRule } from "@/modules/alerts/lib/list-rules";
import { deleteRule, setRuleEnabled, updateRule } from "@/modules/alerts/lib/save-rule";
import { ruleEnabledSchema } from "@/modules/alerts/types/alerts";

const params = z.object({ id: z.string() });

export const GET = orgRoute({ params }, async ({ context, params }) => ({ rule: await getRule(database(), context.orgId, params.id) }));

/** The whole rule, as the editor holds it. */
export const PUT = orgRoute({ params, body: alertRuleInputSchema, permission: { alertRule: ["update"] } }, async ({ context, params, body }) => ({
  rule: await updateRule(database(), context, params.id, body),
}));

/** `{ enabled }`: the switch on the rules list. */
export const PATCH = orgRoute({ params, body: ruleEnabledSchema, permission: { alertRule: ["update"] } }, async ({ context, params, body }) => ({
  rule: await setRuleEnabled(database(), context, params.id, body.enabled),
}));

export const DELETE = orgRoute({ params, permission: { alertRule: ["delete"] } }, async ({ context, params }) => deleteRule(database(), context, params.id));
