import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

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
