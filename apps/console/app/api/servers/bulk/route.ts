import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { runBulkAction } from "@/modules/fleet/lib/bulk-actions";
import { bulkResultSchema } from "@/modules/fleet/types/api-fleet";
import { bulkActionSchema } from "@/modules/fleet/types/bulk";

// Each action checks its own permission (tag, untag, assign: policy assign; revoke: server revoke).
export const POST = orgRoute(
  { summary: "Act on many servers", description: "Tag, untag, assign a policy or revoke the servers named by ids or by the fleet's filters; `preview` counts without changing. One audit entry per server, sharing `bulkId`.",
    tag: "Servers", body: bulkActionSchema, response: bulkResultSchema, errors: [409, 413] },
  async ({ context, body }) => ({ result: await runBulkAction(database(), context, body) }),
);
