import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRuns, startRun } from "@/modules/proof-runs/lib/runs";
import { runSummarySchema } from "@/modules/proof-runs/types/api";
import { startRunInput } from "@/modules/proof-runs/types/proof-run";

const params = z.object({ id: z.string() });

/** The server's proof runs, newest first (the panel polls this for live progress). */
export const GET = orgRoute(
  {
    summary: "A server's proof runs",
    description: "Newest first, with live progress.",
    tag: "Proof runs",
    params,
    response: z.object({ runs: z.array(runSummarySchema) }),
  },
  async ({ context, params }) => ({ runs: await listRuns(database(), context.orgId, params.id) }),
);

/** Requests an A/B proof run on the server; its agent takes it at its next poll. */
export const POST = orgRoute(
  {
    summary: "Start a proof run",
    description:
      "An A/B benchmark on the server with a profile its agent offers; the agent takes it at its next poll. 409 while another run is active.",
    tag: "Proof runs",
    params,
    body: startRunInput,
    permission: { proofRun: ["start"] },
    status: 201,
    response: z.object({ run: runSummarySchema }),
    errors: [409, 422],
  },
  async ({ context, params, body }) => ({ run: await startRun(database(), context, params.id, body) }),
);
