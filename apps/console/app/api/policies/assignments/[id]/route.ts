import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { removeAssignment } from "@/modules/policies/lib/remove-assignment";

export const DELETE = orgRoute({ params: z.object({ id: z.string() }), permission: { policy: ["assign"] } }, async ({ context, params }) => {
  await removeAssignment(database(), context, params.id);
  return { removed: params.id };
});
