import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { sendTestFor } from "@/modules/channels/lib/channels";

/** 202: queued through the outbox; GET /api/alerts/notifications/:notificationId tells how it went. */
export const POST = orgRoute(
  {
    summary: "Send a test notification",
    description: "Queued through the outbox (202); poll `GET /api/alerts/notifications/{id}` for its delivery.",
    tag: "Notification channels",
    params: z.object({ id: z.string() }),
    permission: { notificationChannel: ["test"] },
    status: 202,
    response: z.object({ notificationId: z.string() }),
    errors: [409],
  },
  async ({ context, params }) => sendTestFor(database(), context, params.id),
);
