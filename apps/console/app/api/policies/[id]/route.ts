import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getPolicy } from "@/modules/policies/lib/get-policy";
import { updatePolicy } from "@/modules/policies/lib/update-policy";
import { updatePolicyInput } from "@/modules/policies/types/policy";

const params = z.object({ id: z.string() });

export const GET = orgRoute({ params }, async ({ context, params }) => ({ policy: await getPolicy(database(), context.orgId, params.id) }));

/** Description, or `archived: true | false`. The document changes only through new versions. */
export const PATCH = orgRoute({ params, body: updatePolicyInput, permission: { policy: ["update"] } }, async ({ context, params, body }) => ({
  policy: await updatePolicy(database(), context, params.id, body),
}));
