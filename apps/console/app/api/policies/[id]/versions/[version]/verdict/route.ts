import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryPolicyVersionVerdicts } from "@/modules/gains/lib/query-verdicts";
import { policyVersionVerdictsSchema } from "@/modules/gains/types/api";

/** Before/after verdicts of one policy version on the servers where it is the latest applied change. */
export const GET = orgRoute(
  {
    summary: "Before/after verdicts of a policy version",
    description: "On each server where the version is the latest applied change (docs/gains.md).",
    tag: "Gains",
    params: z.object({ id: z.string(), version: z.coerce.number().int().min(1) }),
    response: policyVersionVerdictsSchema,
  },
  async ({ context, params }) => queryPolicyVersionVerdicts(database(), context.orgId, params.id, params.version),
);
