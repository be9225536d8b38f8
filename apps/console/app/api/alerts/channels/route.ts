import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createChannelFor, listChannelSummaries } from "@/modules/channels/lib/channels";
import { createChannelBody } from "@/modules/channels/types/channels";

export const GET = orgRoute({}, async ({ context }) => ({ channels: await listChannelSummaries(database(), context.orgId) }));

export const POST = orgRoute(
  { body: createChannelBody, permission: { notificationChannel: ["create"] }, status: 201 },
  async ({ context, body }) => createChannelFor(database(), context, body),
);
