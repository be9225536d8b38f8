import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { savePolicyVersion } from "@/modules/policies/lib/save-policy-version";
import { saveVersionInput } from "@/modules/policies/types/policy";

/**
 * Saves the next immutable version; 422 lists the document's problems by path. Answers
 * { version, delivery }: delivery says whether it went out at once or started a rollout.
 */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), body: saveVersionInput, permission: { policy: ["update"] }, status: 201 },
  async ({ context, params, body }) => savePolicyVersion(database(), context, params.id, body),
);
