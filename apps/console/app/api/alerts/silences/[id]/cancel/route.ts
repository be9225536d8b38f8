import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { cancelSilence } from "@/modules/alerts/lib/silences";

export const POST = orgRoute({ params: z.object({ id: z.string() }), permission: { alertSilence: ["cancel"] } }, async ({ context, params }) => ({
  silence: await cancelSilence(database(), context, params.id),
}));
