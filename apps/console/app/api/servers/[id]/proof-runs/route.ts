import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRuns, startRun } from "@/modules/proof-runs/lib/runs";
import { startRunInput } from "@/modules/proof-runs/types/proof-run";

const params = z.object({ id: z.string() });

/** The server's proof runs, newest first (the panel polls this for live progress). */
export const GET = orgRoute({ params }, async ({ context, params }) => ({ runs: await listRuns(database(), context.orgId, params.id) }));

/** Requests an A/B proof run on the server; its agent takes it at its next poll. */
export const POST = orgRoute(
  { params, body: startRunInput, permission: { proofRun: ["start"] }, status: 201 },
  async ({ context, params, body }) => ({ run: await startRun(database(), context, params.id, body) }),
);
