// The answers of the fleet page's routes, for the OpenAPI document (lib/openapi). They mirror
// the types in fleet.ts, bulk.ts, annotations and compare, which the operations return.
import { z } from "zod";
import { isoDateTime, series, unixSeconds } from "@/lib/openapi/schemas";
import { serverSummarySchema } from "./api";
import { fleetPolicyStates } from "./fleet-query";
import { changeOutcomeSchema } from "@/modules/rollouts/types/api";

const latencyFigure = z
  .discriminatedUnion("status", [
    z.object({
      status: z.literal("measured"),
      lowerSeconds: z.number(),
      upperSeconds: z.number().nullable(),
      reads: z.number(),
      basis: z.string(),
    }),
    z.object({ status: z.literal("not-measured"), reason: z.string() }),
  ])
  .meta({ description: "A descriptive figure: the percentile's bucket of the merged histograms (lower, upper], or why there is none" });

const causedFigure = z
  .discriminatedUnion("status", [
    z.object({
      status: z.literal("measured"),
      label: z.string(),
      value: z.number(),
      low: z.number(),
      high: z.number(),
      unit: z.string(),
      basis: z.string(),
    }),
    z.object({ status: z.literal("not-measured"), reason: z.string() }),
  ])
  .meta({ description: "A caused figure against a control group, with its 95 % interval, or why there is none" });

const fleetRow = serverSummarySchema.extend({
  osName: z.string(),
  tags: z.array(z.string()),
  firing: z.number().int(),
  firingSeverity: z.enum(["critical", "warning", "info"]).nullable(),
  policyState: z.enum(fleetPolicyStates),
  revoked: z.boolean(),
  missingCapabilities: z.array(z.string()).nullable().meta({ description: "null: the agent has not reported its capabilities yet" }),
  p99ReadLatency: latencyFigure,
});

const fleetGroup = z.object({
  tag: z.string().nullable().meta({ description: "null: servers without a tag" }),
  servers: z.number().int(),
  online: z.number().int(),
  firing: z.number().int(),
  p99ReadLatency: latencyFigure,
  causedReadCacheGains: causedFigure,
});

export const fleetPageSchema = z.object({
  servers: z.array(fleetRow),
  total: z.number().int().meta({ description: "Servers the filters match, all pages" }),
  page: z.number().int(),
  pageSize: z.number().int(),
  groups: z.array(fleetGroup).nullable().meta({ description: "Only with group=tag" }),
  fleetSize: z.number().int(),
  at: isoDateTime,
});

const facet = z.array(z.object({ value: z.string(), servers: z.number().int() }));
export const fleetFacetsSchema = z.object({ facets: z.object({ tags: facet, os: facet, kernels: facet, agentVersions: facet }) });

export const bulkResultSchema = z.object({
  result: z.object({
    action: z.enum(["tag", "untag", "assign-policy", "revoke"]),
    preview: z.boolean(),
    servers: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    replaced: z.array(z.object({ serverId: z.string(), hostname: z.string(), policy: z.string() })),
    bulkId: z.string().nullable(),
    delivery: changeOutcomeSchema
      .optional()
      .meta({ description: "assign-policy only: at once or the rollout it started (absent in a preview)" }),
  }),
});

export const annotationsSchema = z.object({
  from: isoDateTime,
  to: isoDateTime,
  annotations: z.array(
    z.object({
      id: z.string(),
      serverId: z.string(),
      hostname: z.string(),
      kind: z.string().meta({ description: "policy.applied, alert.firing, proof_run.ran, agent.restarted, …" }),
      tone: z.enum(["policy", "failure", "alert", "resolved", "proof", "agent"]),
      at: isoDateTime,
      endAt: isoDateTime.nullable(),
      title: z.string(),
      detail: z.string(),
      href: z.string().nullable(),
    }),
  ),
  truncated: z.boolean(),
});

export const comparisonSchema = z.object({
  metric: z.string(),
  label: z.string(),
  unit: z.string(),
  range: z.string(),
  from: isoDateTime,
  to: isoDateTime,
  bucketSeconds: z.number().nullable(),
  servers: z.array(z.object({ id: z.string(), hostname: z.string(), time: unixSeconds, values: series })),
});
