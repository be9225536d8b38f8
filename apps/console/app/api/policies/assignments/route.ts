import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { assignPolicy } from "@/modules/policies/lib/assign-policy";
import { createAssignmentInput } from "@/modules/policies/types/policy";

/** Assigns a policy to the organisation default, a tag or a server (replacing what it had). */
export const POST = orgRoute(
  { body: createAssignmentInput, permission: { policy: ["assign"] }, status: 201 },
  async ({ context, body }) => ({ assignment: await assignPolicy(database(), context, body) }),
);
