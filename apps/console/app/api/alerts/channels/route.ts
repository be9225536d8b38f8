import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createChannelFor, listChannelSummaries } from "@/modules/channels/lib/channels";
import { channelSummarySchema } from "@/modules/channels/types/api";
import { createChannelBody } from "@/modules/channels/types/channels";

export const GET = orgRoute(
  {
    summary: "List notification channels",
    description: "With their routes; never a secret, only its last characters.",
    tag: "Notification channels",
    response: z.object({ channels: z.array(channelSummarySchema) }),
  },
  async ({ context }) => ({ channels: await listChannelSummaries(database(), context.orgId) }),
);

export const POST = orgRoute(
  {
    summary: "Create a notification channel",
    description:
      "E-mail, Slack, Teams, PagerDuty or a signed webhook (docs/notifications.md). A webhook without `signingSecret` gets one, answered this once.",
    tag: "Notification channels",
    body: createChannelBody,
    permission: { notificationChannel: ["create"] },
    status: 201,
    response: z.object({ channel: channelSummarySchema, generatedSigningSecret: z.string().optional() }),
    errors: [409, 503],
  },
  async ({ context, body }) => createChannelFor(database(), context, body),
);
