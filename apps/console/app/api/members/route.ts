import { database, identityTables } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { listMembers } from "@/modules/members/lib/list-members";

/** The organisation's members and pending invitations. */
export const GET = orgRoute({}, async ({ context }) => listMembers(identityTables(database()), context.orgId));
