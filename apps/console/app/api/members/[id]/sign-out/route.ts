import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { signOutMember } from "@/modules/members/lib/sign-out-member";

/** Ends every session of the member (owners and admins; an owner only by an owner). */
export const POST = orgRoute({ params: z.object({ id: z.string() }), permission: { memberSession: ["revoke"] } }, async ({ context, params }) =>
  signOutMember(database(), context, params.id));
