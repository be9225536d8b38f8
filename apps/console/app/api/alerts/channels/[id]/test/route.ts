import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { sendTestFor } from "@/modules/channels/lib/channels";

/** 202: queued through the outbox; GET /api/alerts/notifications/:notificationId tells how it went. */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), permission: { notificationChannel: ["test"] }, status: 202 },
  async ({ context, params }) => sendTestFor(database(), context, params.id),
);
