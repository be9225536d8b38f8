// What the channels API takes and answers. Each kind's settings are @spindle/notify's schemas,
// checked there; these bodies only fix the envelope.
import { channelKinds, routeScopes, severities, type ChannelView, type NotificationStatus, type RouteView } from "@spindle/notify";
import { z } from "zod";

export const createChannelBody = z
  .object({
    name: z.string(),
    kind: z.enum(channelKinds),
    config: z.record(z.string(), z.unknown()),
    secrets: z.record(z.string(), z.unknown()),
    enabled: z.boolean().optional(),
  })
  .strict();
export type CreateChannelBody = z.infer<typeof createChannelBody>;

/** Leave out what stays; `secrets`, when given, replaces every secret of the channel. */
export const updateChannelBody = z
  .object({
    name: z.string().optional(),
    enabled: z.boolean().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    secrets: z.record(z.string(), z.unknown()).optional(),
    /** Send the recommendations digest here too (not on PagerDuty). */
    recommendationDigest: z.boolean().optional(),
  })
  .strict();
export type UpdateChannelBody = z.infer<typeof updateChannelBody>;

export const createRouteBody = z
  .object({
    severities: z.array(z.enum(severities)),
    scope: z.enum(routeScopes),
    tag: z.string().nullable().default(null),
    serverId: z.string().nullable().default(null),
    notifyResolved: z.boolean().default(true),
  })
  .strict();
export type CreateRouteBody = z.infer<typeof createRouteBody>;

/** JSON carries dates as ISO strings. */
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };
export type ChannelSummary = Json<ChannelView> & { routes: Json<RouteView>[] };
export type DeliveryStatus = Json<NotificationStatus>;
