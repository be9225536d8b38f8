import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { cancelSilence } from "@/modules/alerts/lib/silences";
import { alertSilenceSchema } from "@/modules/alerts/types/api";

export const POST = orgRoute(
  {
    summary: "Cancel a silence",
    description: "409 when it is over already.",
    tag: "Alerts",
    params: z.object({ id: z.string() }),
    permission: { alertSilence: ["cancel"] },
    response: z.object({ silence: alertSilenceSchema }),
    errors: [409],
  },
  async ({ context, params }) => ({ silence: await cancelSilence(database(), context, params.id) }),
);
