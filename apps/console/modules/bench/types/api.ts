import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";
import { agentParameters, runStatuses } from "./bench";

export const runSummarySchema = z.object({
  id: z.uuid(),
  serverId: z.uuid(),
  profile: z.string(),
  status: z.enum(runStatuses),
  progress: z.number().nullable(),
  phase: z.string().nullable(),
  error: z.string().nullable(),
  parameters: agentParameters.nullable(),
  requestedBy: z.string().nullable(),
  createdAt: isoDateTime,
  startedAt: nullableDateTime,
  finishedAt: nullableDateTime,
  hasReport: z.boolean().meta({ description: "A report is stored: a succeeded run's, or the partial one of a run that stopped early" }),
});

export const runDetailSchema = runSummarySchema.extend({
  hostname: z.string(),
  report: z.unknown().meta({ description: "The agent's report once the run ended (docs/agent-protocol.md, “Proof runs”); null before" }),
});
