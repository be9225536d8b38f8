import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";
import { changeOutcomeSchema } from "@/modules/rollouts/types/api";

export const serverSummarySchema = z.object({
  id: z.uuid(),
  hostname: z.string(),
  os: z.string(),
  osVersion: z.string(),
  kernel: z.string(),
  arch: z.string(),
  agentVersion: z.string(),
  createdAt: isoDateTime,
  lastSeenAt: nullableDateTime,
  status: z.enum(["online", "offline", "waiting"]).meta({ description: "online: delivered within 30 s; waiting: enrolled, never reported" }),
});

export const agentStateSchema = z.object({
  serverId: z.uuid(),
  revokedAt: nullableDateTime,
  reenrollmentAllowedUntil: nullableDateTime,
  credentialExpiresAt: nullableDateTime,
});

const latencyFigure = z.discriminatedUnion("status", [
  z.object({ status: z.literal("measured"), lowerSeconds: z.number(), upperSeconds: z.number().nullable(), reads: z.number(), basis: z.string() }),
  z.object({ status: z.literal("not-measured"), reason: z.string() }),
]).meta({ description: "A percentile's bucket of merged histograms (a description, not a saving), or why there is none" });

const causedFigure = z.discriminatedUnion("status", [
  z.object({ status: z.literal("measured"), label: z.string(), value: z.number(), low: z.number(), high: z.number(), unit: z.string(), basis: z.string() }),
  z.object({ status: z.literal("not-measured"), reason: z.string() }),
]);

/** GET /api/servers: one page of the fleet query (modules/fleet/types/fleet.ts, FleetPage). */
export const fleetPageSchema = z.object({
  servers: z.array(serverSummarySchema.extend({
    osName: z.string(),
    tags: z.array(z.string()),
    firing: z.number().int(),
    firingSeverity: z.enum(["critical", "warning", "info"]).nullable(),
    policyState: z.string(),
    revoked: z.boolean(),
    missingCapabilities: z.array(z.string()).nullable(),
    p99ReadLatency: latencyFigure,
  })),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  groups: z.array(z.object({
    tag: z.string().nullable(), servers: z.number().int(), online: z.number().int(), firing: z.number().int(),
    p99ReadLatency: latencyFigure, causedReadCacheGains: causedFigure,
  })).nullable(),
  fleetSize: z.number().int(),
  at: isoDateTime,
});

const facet = z.array(z.object({ value: z.string(), servers: z.number().int() }));

/** GET /api/servers/facets: the values the fleet's filters offer, with how many servers have each. */
export const fleetFacetsSchema = z.object({ facets: z.object({ tags: facet, os: facet, kernels: facet, agentVersions: facet }) });

/** POST /api/servers/bulk: what the action did or, previewed, would do (types/bulk.ts, BulkResult). */
export const bulkResultSchema = z.object({
  result: z.object({
    action: z.enum(["tag", "untag", "assign-policy", "revoke"]),
    preview: z.boolean(),
    servers: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    replaced: z.array(z.object({ serverId: z.uuid(), hostname: z.string(), policy: z.string() })),
    bulkId: z.string().nullable(),
    delivery: changeOutcomeSchema.optional(),
  }),
});
