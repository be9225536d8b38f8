// GET /api/annotations's answer as a zod schema, for the OpenAPI document and its contract test;
// the TypeScript shapes are types/annotation.ts.
import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

export const annotationsSchema = z.object({
  from: isoDateTime,
  to: isoDateTime,
  annotations: z.array(z.object({
    id: z.string(),
    serverId: z.uuid(),
    hostname: z.string(),
    kind: z.string().meta({ description: "`<subject>.<verb>`: policy.applied, policy.rolled_back, alert.firing, proof_run.ran, agent.restarted, …" }),
    tone: z.enum(["policy", "failure", "alert", "resolved", "proof", "agent"]),
    at: isoDateTime,
    endAt: nullableDateTime.meta({ description: "null for a moment; the end of a span (a proof run)" }),
    title: z.string(),
    detail: z.string(),
    href: z.string().nullable(),
  })),
  truncated: z.boolean().meta({ description: "More happened in the window than one answer carries (the newest are kept)" }),
});
