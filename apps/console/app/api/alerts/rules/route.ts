import { alertRuleInputSchema } from "@spindle/domain";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRules } from "@/modules/alerts/lib/list-rules";
import { createRule } from "@/modules/alerts/lib/save-rule";

export const GET = orgRoute({}, async ({ context }) => listRules(database(), context.orgId));

export const POST = orgRoute(
  { body: alertRuleInputSchema, permission: { alertRule: ["create"] }, status: 201 },
  async ({ context, body }) => ({ rule: await createRule(database(), context, body) }),
);
