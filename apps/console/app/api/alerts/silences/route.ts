import { alertSilenceInputSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createSilence, listSilences } from "@/modules/alerts/lib/silences";
import { alertSilenceSchema } from "@/modules/alerts/types/api";

export const GET = orgRoute(
  { summary: "List silences", tag: "Alerts", response: z.object({ silences: z.array(alertSilenceSchema) }) },
  async ({ context }) => ({ silences: await listSilences(database(), context.orgId) }),
);

export const POST = orgRoute(
  {
    summary: "Silence alerts",
    description: "Changes under a silence are recorded and not notified; an end in the past is 400.",
    tag: "Alerts",
    body: alertSilenceInputSchema,
    permission: { alertSilence: ["create"] },
    status: 201,
    response: z.object({ silence: alertSilenceSchema }),
  },
  async ({ context, body }) => ({ silence: await createSilence(database(), context, body) }),
);
