import { alertSilenceInputSchema } from "@spindle/domain";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createSilence, listSilences } from "@/modules/alerts/lib/silences";

export const GET = orgRoute({}, async ({ context }) => ({ silences: await listSilences(database(), context.orgId) }));

export const POST = orgRoute(
  { body: alertSilenceInputSchema, permission: { alertSilence: ["create"] }, status: 201 },
  async ({ context, body }) => ({ silence: await createSilence(database(), context, body) }),
);
