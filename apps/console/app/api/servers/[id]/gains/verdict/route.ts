import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryServerVerdict } from "@/modules/gains/lib/query-verdicts";

/** Before/after verdict around the latest policy change the server applied. */
export const GET = orgRoute({ params: z.object({ id: z.string() }) }, async ({ context, params }) =>
  queryServerVerdict(database(), context.orgId, params.id),
);
