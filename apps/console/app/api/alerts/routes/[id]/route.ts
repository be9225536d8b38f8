import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { deleteRouteFor } from "@/modules/channels/lib/channels";

export const DELETE = orgRoute(
  {
    summary: "Remove an alert route",
    tag: "Notification channels",
    params: z.object({ id: z.string() }),
    permission: { notificationChannel: ["update"] },
    response: z.object({ deleted: z.string() }),
  },
  async ({ context, params }) => deleteRouteFor(database(), context, params.id),
);
