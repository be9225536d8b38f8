import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { assignPolicy } from "@/modules/policies/lib/assign-policy";
import { assignmentSchema } from "@/modules/policies/types/api";
import { createAssignmentInput } from "@/modules/policies/types/policy";

/** Assigns a policy to the organisation default, a tag or a server (replacing what it had). */
export const POST = orgRoute(
  { summary: "Assign a policy", description: "To the organisation default, a tag or one server, replacing what that target had.", tag: "Policies",
    body: createAssignmentInput, permission: { policy: ["assign"] }, status: 201, response: z.object({ assignment: assignmentSchema }), errors: [409] },
  async ({ context, body }) => ({ assignment: await assignPolicy(database(), context, body) }),
);
