import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { assignPolicy } from "@/modules/policies/lib/assign-policy";
import { createAssignmentInput } from "@/modules/policies/types/policy";

/** Assigns a policy to the organisation default, a tag or a server (replacing what it had); answers { assignment, delivery }. */
export const POST = orgRoute(
  { body: createAssignmentInput, permission: { policy: ["assign"] }, status: 201 },
  async ({ context, body }) => assignPolicy(database(), context, body),
);
