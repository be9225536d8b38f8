import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { getRollout } from "@/modules/agent-upgrades/lib/get-rollout";

const params = z.object({ id: z.string() });

/** One upgrade: status, plan, each wave's servers and their state (the page polls this). */
export const GET = orgRoute({ params }, async ({ context, params }) => ({ rollout: await getRollout(database(), context.orgId, params.id) }));
