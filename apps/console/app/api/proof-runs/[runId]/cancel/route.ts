import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { cancelRun } from "@/modules/proof-runs/lib/runs";

/** Cancels a queued run at once, or asks the agent to stop a running one. */
export const POST = orgRoute(
  { params: z.object({ runId: z.string() }), permission: { proofRun: ["cancel"] } },
  async ({ context, params }) => ({ run: await cancelRun(database(), context, params.runId) }),
);
