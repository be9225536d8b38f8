import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { acknowledgeAlert } from "@/modules/alerts/lib/acknowledge";
import { acknowledgeInputSchema } from "@/modules/alerts/types/alerts";
import { acknowledgementSchema } from "@/modules/alerts/types/api";

/** Acknowledge a firing alert; `id` is the alert's change to firing (OpenAlert.alertId). */
export const POST = orgRoute(
  {
    summary: "Acknowledge a firing alert",
    description:
      "`id` is the open alert's `alertId`. Changes no rule and no state; 409 when the alert is no longer firing or was acknowledged already.",
    tag: "Alerts",
    params: z.object({ id: z.string() }),
    body: acknowledgeInputSchema,
    permission: { alert: ["acknowledge"] },
    response: z.object({ acknowledgement: acknowledgementSchema }),
    errors: [409],
  },
  async ({ context, params, body }) => ({ acknowledgement: await acknowledgeAlert(database(), context, params.id, body) }),
);
