import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRun } from "@/modules/proof-runs/lib/runs";
import { runDetailSchema } from "@/modules/proof-runs/types/api";

/** One proof run with its report; another organisation's run is 404. */
export const GET = orgRoute(
  {
    summary: "One proof run with its report",
    tag: "Proof runs",
    params: z.object({ runId: z.string() }),
    response: z.object({ run: runDetailSchema }),
  },
  async ({ context, params }) => ({ run: await getRun(database(), context.orgId, params.runId) }),
);
