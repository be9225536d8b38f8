import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { deleteChannelFor, updateChannelFor } from "@/modules/channels/lib/channels";
import { updateChannelBody } from "@/modules/channels/types/channels";

const params = z.object({ id: z.string() });

export const PATCH = orgRoute({ params, body: updateChannelBody, permission: { notificationChannel: ["update"] } }, async ({ context, params, body }) => ({
  channel: await updateChannelFor(database(), context, params.id, body),
}));

export const DELETE = orgRoute({ params, permission: { notificationChannel: ["delete"] } }, async ({ context, params }) => deleteChannelFor(database(), context, params.id));
