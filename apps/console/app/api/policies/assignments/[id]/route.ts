import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { removeAssignment } from "@/modules/policies/lib/remove-assignment";
import { removeAssignmentInput } from "@/modules/policies/types/policy";

/** Removes an assignment; the optional body { delivery } says how the change goes out. */
export const DELETE = orgRoute(
  { params: z.object({ id: z.string() }), body: removeAssignmentInput, permission: { policy: ["assign"] } },
  async ({ context, params, body }) => ({ removed: params.id, delivery: await removeAssignment(database(), context, params.id, body) }),
);
