import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { deleteChannelFor, updateChannelFor } from "@/modules/channels/lib/channels";
import { channelSummarySchema } from "@/modules/channels/types/api";
import { updateChannelBody } from "@/modules/channels/types/channels";

const params = z.object({ id: z.string() });

export const PATCH = orgRoute(
  {
    summary: "Change a notification channel",
    description: "Leave out what stays; `secrets`, when given, replaces every secret of the channel (sealed at rest, never answered).",
    tag: "Notification channels",
    params,
    body: updateChannelBody,
    permission: { notificationChannel: ["update"] },
    response: z.object({ channel: channelSummarySchema }),
    errors: [409, 503],
  },
  async ({ context, params, body }) => ({ channel: await updateChannelFor(database(), context, params.id, body) }),
);

export const DELETE = orgRoute(
  {
    summary: "Delete a notification channel",
    tag: "Notification channels",
    params,
    permission: { notificationChannel: ["delete"] },
    response: z.object({ deleted: z.string() }),
  },
  async ({ context, params }) => deleteChannelFor(database(), context, params.id),
);
