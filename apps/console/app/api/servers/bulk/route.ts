import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { runBulkAction } from "@/modules/fleet/lib/bulk-actions";
import { bulkResultSchema } from "@/modules/fleet/types/api-fleet";
import { bulkActionSchema } from "@/modules/fleet/types/bulk";

// Each action checks its own permission (tag, untag, assign: policy assign; revoke: server revoke).
export const POST = orgRoute(
  {
    summary: "Act on many servers",
    description:
      "Tag, untag, assign a policy (at once or as a rollout: `delivery`) or revoke the servers named by ids or by the fleet's filters; `preview` counts without changing. One audit entry per server, sharing `bulkId`. 422 when an assignment's rollout plan cannot be made.",
    tag: "Servers",
    body: bulkActionSchema,
    response: bulkResultSchema,
    errors: [409, 413, 422],
  },
  async ({ context, body }) => ({ result: await runBulkAction(database(), context, body) }),
);
