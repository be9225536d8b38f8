import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { removeAssignment } from "@/modules/policies/lib/remove-assignment";
import { changeOutcomeSchema } from "@/modules/rollouts/types/api";
import { removeAssignmentInput } from "@/modules/policies/types/policy";

/** Removes an assignment; the optional body { delivery } says how the change goes out. */
export const DELETE = orgRoute(
  {
    summary: "Remove a policy assignment",
    description:
      "Its servers fall back to the remaining layers, at once or as a rollout (`delivery`). 409 when a running rollout still changes that target.",
    tag: "Policies",
    params: z.object({ id: z.string() }),
    body: removeAssignmentInput,
    permission: { policy: ["assign"] },
    response: z.object({ removed: z.string(), delivery: changeOutcomeSchema }),
    errors: [409, 422],
  },
  async ({ context, params, body }) => ({ removed: params.id, delivery: await removeAssignment(database(), context, params.id, body) }),
);
