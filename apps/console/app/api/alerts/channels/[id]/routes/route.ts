import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createRouteFor } from "@/modules/channels/lib/channels";
import { createRouteBody } from "@/modules/channels/types/channels";

export const POST = orgRoute(
  { params: z.object({ id: z.string() }), body: createRouteBody, permission: { notificationChannel: ["update"] }, status: 201 },
  async ({ context, params, body }) => ({ channel: await createRouteFor(database(), context, params.id, body) }),
);
