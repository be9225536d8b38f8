import { database, identityTables } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listMembers } from "@/modules/members/lib/list-members";
import { membersSchema } from "@/modules/members/types/api";

/** The organisation's members and pending invitations. */
export const GET = orgRoute(
  {
    summary: "List members and pending invitations",
    description: "Inviting and changing roles are done in the console (better-auth's organisation endpoints under /api/auth).",
    tag: "Members",
    response: membersSchema,
  },
  async ({ context }) => listMembers(identityTables(database()), context.orgId),
);
