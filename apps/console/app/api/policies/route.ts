import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createPolicy } from "@/modules/policies/lib/create-policy";
import { listPolicies } from "@/modules/policies/lib/list-policies";
import { policyDetailSchema, policySummarySchema } from "@/modules/policies/types/api";
import { createPolicyInput } from "@/modules/policies/types/policy";

export const GET = orgRoute(
  {
    summary: "List policies",
    description: "With their latest version and assignments; `archived=1` includes archived ones.",
    tag: "Policies",
    query: z.object({ archived: z.enum(["0", "1"]).default("0") }),
    response: z.object({ policies: z.array(policySummarySchema) }),
  },
  async ({ context, query }) => ({ policies: await listPolicies(database(), context.orgId, { includeArchived: query.archived === "1" }) }),
);

export const POST = orgRoute(
  {
    summary: "Create a policy",
    description: "With version 1: an empty layer unless `document` is given (docs/policy.md).",
    tag: "Policies",
    body: createPolicyInput,
    permission: { policy: ["create"] },
    status: 201,
    response: z.object({ policy: policyDetailSchema }),
    errors: [409, 422],
  },
  async ({ context, body }) => ({ policy: await createPolicy(database(), context, body) }),
);
