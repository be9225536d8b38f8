import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { acknowledgeAlert } from "@/modules/alerts/lib/acknowledge";
import { acknowledgeInputSchema } from "@/modules/alerts/types/alerts";

/** Acknowledge a firing alert; `id` is the alert's change to firing (OpenAlert.alertId). */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), body: acknowledgeInputSchema, permission: { alert: ["acknowledge"] } },
  async ({ context, params, body }) => ({ acknowledgement: await acknowledgeAlert(database(), context, params.id, body) }),
);
