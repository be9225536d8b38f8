import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { runBulkAction } from "@/modules/fleet/lib/bulk-actions";
import { bulkActionSchema } from "@/modules/fleet/types/bulk";

// Each action checks its own permission (tag, untag, assign: policy assign; revoke: server revoke).
export const POST = orgRoute({ body: bulkActionSchema }, async ({ context, body }) => ({ result: await runBulkAction(database(), context, body) }));
