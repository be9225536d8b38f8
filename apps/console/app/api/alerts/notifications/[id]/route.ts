import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { readDelivery } from "@/modules/channels/lib/channels";

export const GET = orgRoute({ params: z.object({ id: z.string() }) }, async ({ context, params }) => ({ notification: await readDelivery(database(), context.orgId, params.id) }));
