import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { readDelivery } from "@/modules/channels/lib/channels";
import { deliveryStatusSchema } from "@/modules/channels/types/api";

export const GET = orgRoute(
  {
    summary: "Delivery of one notification",
    tag: "Notification channels",
    params: z.object({ id: z.string() }),
    response: z.object({ notification: deliveryStatusSchema }),
  },
  async ({ context, params }) => ({ notification: await readDelivery(database(), context.orgId, params.id) }),
);
