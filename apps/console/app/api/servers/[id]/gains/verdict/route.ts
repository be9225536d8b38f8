import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryServerVerdict } from "@/modules/gains/lib/query-verdicts";
import { serverVerdictSchema } from "@/modules/gains/types/api";

/** Before/after verdict around the latest policy change the server applied. */
export const GET = orgRoute(
  {
    summary: "Before/after verdict of a server's latest policy change",
    tag: "Gains",
    params: z.object({ id: z.string() }),
    response: serverVerdictSchema,
  },
  async ({ context, params }) => queryServerVerdict(database(), context.orgId, params.id),
);
