import { z } from "zod";
import { prisma } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { getServer } from "@/modules/fleet/lib/get-server";

export const GET = orgRoute({ params: z.object({ id: z.string() }) }, async ({ context, params }) => ({
  server: await getServer(prisma(), context.orgId, params.id),
}));
