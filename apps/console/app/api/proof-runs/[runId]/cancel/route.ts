import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { cancelRun } from "@/modules/proof-runs/lib/runs";
import { runSummarySchema } from "@/modules/proof-runs/types/api";

/** Cancels a queued run at once, or asks the agent to stop a running one. */
export const POST = orgRoute(
  {
    summary: "Cancel a proof run",
    description: "A queued run ends at once; a running one is asked to stop. 409 when it has ended.",
    tag: "Proof runs",
    params: z.object({ runId: z.string() }),
    permission: { proofRun: ["cancel"] },
    response: z.object({ run: runSummarySchema }),
    errors: [409],
  },
  async ({ context, params }) => ({ run: await cancelRun(database(), context, params.runId) }),
);
