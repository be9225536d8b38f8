import { alertRuleInputSchema } from "@spindle/domain";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { previewRule } from "@/modules/alerts/lib/preview-rule";

/** Read-only: the rule in the editor replayed over 7 days; nothing is saved. */
export const POST = orgRoute({ body: alertRuleInputSchema }, async ({ context, body }) => ({ preview: await previewRule(database(), context.orgId, body) }));
