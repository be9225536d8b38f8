import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { assignPolicy } from "@/modules/policies/lib/assign-policy";
import { assignmentSchema } from "@/modules/policies/types/api";
import { createAssignmentInput } from "@/modules/policies/types/policy";
import { changeOutcomeSchema } from "@/modules/rollouts/types/api";

/** Assigns a policy to the organisation default, a tag or a server (replacing what it had); answers { assignment, delivery }. */
export const POST = orgRoute(
  {
    summary: "Assign a policy",
    description:
      "To the organisation default, a tag or one server, replacing what that target had; delivered at once or as a rollout (`delivery`). 409 when archived or a running rollout still changes that target; 422 when the rollout plan cannot be made.",
    tag: "Policies",
    body: createAssignmentInput,
    permission: { policy: ["assign"] },
    status: 201,
    response: z.object({ assignment: assignmentSchema, delivery: changeOutcomeSchema }),
    errors: [409, 422],
  },
  async ({ context, body }) => assignPolicy(database(), context, body),
);
