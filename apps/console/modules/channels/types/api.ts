import { channelKinds, routeScopes, severities } from "@spindle/notify";
import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

const route = z.object({
  id: z.string(),
  channelId: z.string(),
  severities: z.array(z.enum(severities)),
  scope: z.enum(routeScopes),
  tag: z.string().nullable(),
  serverId: z.string().nullable(),
  notifyResolved: z.boolean(),
  createdAt: isoDateTime,
});

export const channelSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(channelKinds),
  config: z.record(z.string(), z.unknown()).meta({ description: "The channel's settings; never a secret" }),
  secretHints: z.record(z.string(), z.string()).meta({ description: "The last characters of each secret" }),
  enabled: z.boolean(),
  recommendationDigest: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  routes: z.array(route),
});

export const deliveryStatusSchema = z.object({
  id: z.string(),
  channelId: z.string(),
  purpose: z.enum(["alert", "test"]),
  transitionId: z.string(),
  status: z.enum(["pending", "sending", "sent", "failed", "suppressed"]),
  attempts: z.number().int(),
  nextAttemptAt: isoDateTime,
  lastError: z.string().nullable(),
  sentAt: nullableDateTime,
  failedAt: nullableDateTime,
  createdAt: isoDateTime,
});
