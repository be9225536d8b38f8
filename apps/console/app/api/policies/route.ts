import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { createPolicy } from "@/modules/policies/lib/create-policy";
import { listPolicies } from "@/modules/policies/lib/list-policies";
import { createPolicyInput } from "@/modules/policies/types/policy";

export const GET = orgRoute({ query: z.object({ archived: z.enum(["0", "1"]).default("0") }) }, async ({ context, query }) => ({
  policies: await listPolicies(database(), context.orgId, { includeArchived: query.archived === "1" }),
}));

export const POST = orgRoute(
  { body: createPolicyInput, permission: { policy: ["create"] }, status: 201 },
  async ({ context, body }) => ({ policy: await createPolicy(database(), context, body) }),
);
