import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryPolicyVersionVerdicts } from "@/modules/gains/lib/query-verdicts";

/** Before/after verdicts of one policy version on the servers where it is the latest applied change. */
export const GET = orgRoute(
  { params: z.object({ id: z.string(), version: z.coerce.number().int().min(1) }) },
  async ({ context, params }) => queryPolicyVersionVerdicts(database(), context.orgId, params.id, params.version),
);
