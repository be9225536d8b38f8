import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { createRouteFor } from "@/modules/channels/lib/channels";
import { channelSummarySchema } from "@/modules/channels/types/api";
import { createRouteBody } from "@/modules/channels/types/channels";

export const POST = orgRoute(
  {
    summary: "Route alerts to a channel",
    description: "Which severities, from which part of the fleet (organisation, tag or server), reach the channel.",
    tag: "Notification channels",
    params: z.object({ id: z.string() }),
    body: createRouteBody,
    permission: { notificationChannel: ["update"] },
    status: 201,
    response: z.object({ channel: channelSummarySchema }),
  },
  async ({ context, params, body }) => ({ channel: await createRouteFor(database(), context, params.id, body) }),
);
