import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { runBulkAction } from "@/modules/fleet/lib/bulk-actions";
import { bulkResultSchema } from "@/modules/fleet/types/api";
import { bulkActionSchema } from "@/modules/fleet/types/bulk";

// Each action checks its own permission (tag, untag, assign: policy assign; revoke: server revoke).
export const POST = orgRoute(
  { summary: "Act on many servers", description: "Tag, untag, assign a policy (at once or as a rollout) or revoke, by ids or by the fleet's filters with the count confirmed; `preview: true` changes nothing. 409 when the matching servers changed since the count was confirmed or the policy is archived; 413 when more than 10,000 match.",
    tag: "Servers", body: bulkActionSchema, response: bulkResultSchema, errors: [409, 413, 422] },
  async ({ context, body }) => ({ result: await runBulkAction(database(), context, body) }),
);
