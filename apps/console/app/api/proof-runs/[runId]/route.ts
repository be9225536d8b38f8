import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRun } from "@/modules/proof-runs/lib/runs";

/** One proof run with its report; another organisation's run is 404. */
export const GET = orgRoute({ params: z.object({ runId: z.string() }) }, async ({ context, params }) => ({
  run: await getRun(database(), context.orgId, params.runId),
}));
