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
  status: z
    .enum(["online", "offline", "waiting"])
    .meta({ description: "online: delivered within 30 s; waiting: enrolled, never reported" }),
});

export const agentStateSchema = z.object({
  serverId: z.uuid(),
  revokedAt: nullableDateTime,
  reenrollmentAllowedUntil: nullableDateTime,
  credentialExpiresAt: nullableDateTime,
});
