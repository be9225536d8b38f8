import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { savePolicyVersion } from "@/modules/policies/lib/save-policy-version";
import { policyVersionSchema } from "@/modules/policies/types/api";
import { saveVersionInput } from "@/modules/policies/types/policy";
import { changeOutcomeSchema } from "@/modules/rollouts/types/api";

/** Saves the next immutable version; `delivery` in the answer says whether it went out at once or started a rollout. */
export const POST = orgRoute(
  {
    summary: "Save a policy version",
    description:
      'The next immutable version, delivered at once or as a rollout (`delivery`; docs/policy.md "Rollouts"). 422 lists the document\'s problems by path, or a rollout plan that cannot be made; 409 when `basedOnVersion` is not the latest, nothing changed, the policy is archived, or a running rollout still changes it.',
    tag: "Policies",
    params: z.object({ id: z.string() }),
    body: saveVersionInput,
    permission: { policy: ["update"] },
    status: 201,
    response: z.object({ version: policyVersionSchema, delivery: changeOutcomeSchema }),
    errors: [409, 422],
  },
  async ({ context, params, body }) => savePolicyVersion(database(), context, params.id, body),
);
