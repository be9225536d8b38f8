import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { signOutMember } from "@/modules/members/lib/sign-out-member";

/** Ends every session of the member (owners and admins; an owner only by an owner). */
export const POST = orgRoute(
  {
    summary: "Sign a member out",
    description:
      "Ends every session of the member (in every organisation: sessions are per person). Only an owner signs out an owner. Their API tokens are not touched.",
    tag: "Members",
    params: z.object({ id: z.string() }),
    permission: { memberSession: ["revoke"] },
    response: z.object({ signedOutSessions: z.number().int() }),
  },
  async ({ context, params }) => signOutMember(database(), context, params.id),
);
