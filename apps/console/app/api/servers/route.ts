import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listServers } from "@/modules/fleet/lib/list-servers";

export const GET = orgRoute({}, async ({ context }) => ({ servers: await listServers(database(), context.orgId) }));
