import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { savePolicyVersion } from "@/modules/policies/lib/save-policy-version";
import { policyVersionSchema } from "@/modules/policies/types/api";
import { saveVersionInput } from "@/modules/policies/types/policy";

/** Saves the next immutable version; 422 lists the document's problems by path. */
export const POST = orgRoute(
  { summary: "Save a policy version", description: "The next immutable version. 422 lists the document's problems by path; 409 when `basedOnVersion` is not the latest, nothing changed, or the policy is archived.",
    tag: "Policies", params: z.object({ id: z.string() }), body: saveVersionInput, permission: { policy: ["update"] }, status: 201,
    response: z.object({ version: policyVersionSchema }), errors: [409, 422] },
  async ({ context, params, body }) => ({ version: await savePolicyVersion(database(), context, params.id, body) }),
);
