import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { removeAssignment } from "@/modules/policies/lib/remove-assignment";

export const DELETE = orgRoute(
  { summary: "Remove a policy assignment", tag: "Policies", params: z.object({ id: z.string() }), permission: { policy: ["assign"] }, response: z.object({ removed: z.string() }) },
  async ({ context, params }) => {
    await removeAssignment(database(), context, params.id);
    return { removed: params.id };
  },
);
