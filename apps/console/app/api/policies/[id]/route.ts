import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getPolicy } from "@/modules/policies/lib/get-policy";
import { updatePolicy } from "@/modules/policies/lib/update-policy";
import { policyDetailSchema } from "@/modules/policies/types/api";
import { updatePolicyInput } from "@/modules/policies/types/policy";

const params = z.object({ id: z.string() });

export const GET = orgRoute(
  { summary: "One policy with every version", tag: "Policies", params, response: z.object({ policy: policyDetailSchema }) },
  async ({ context, params }) => ({ policy: await getPolicy(database(), context.orgId, params.id) }),
);

/** Description, or `archived: true | false`. The document changes only through new versions. */
export const PATCH = orgRoute(
  {
    summary: "Describe, archive or restore a policy",
    description: "Archiving an assigned policy is 409. The document changes only through new versions.",
    tag: "Policies",
    params,
    body: updatePolicyInput,
    permission: { policy: ["update"] },
    response: z.object({ policy: policyDetailSchema }),
    errors: [409],
  },
  async ({ context, params, body }) => ({ policy: await updatePolicy(database(), context, params.id, body) }),
);
