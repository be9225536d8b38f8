import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { deleteRouteFor } from "@/modules/channels/lib/channels";

export const DELETE = orgRoute({ params: z.object({ id: z.string() }), permission: { notificationChannel: ["update"] } }, async ({ context, params }) =>
  deleteRouteFor(database(), context, params.id));
