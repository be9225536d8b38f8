import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { allowReenrolment } from "@/modules/fleet/lib/server-lifecycle";
import { agentStateSchema } from "@/modules/fleet/types/api";

/** Lets one enrolment token take over this server's identity for the next hour (owner/admin). */
export const POST = orgRoute(
  {
    summary: "Allow a server to be enrolled again",
    description: "For the next hour one enrolment token may take over this server's identity (a re-installed machine).",
    tag: "Servers",
    params: z.object({ id: z.string() }),
    permission: { server: ["revoke"] },
    response: z.object({ agent: agentStateSchema }),
  },
  async ({ context, params }) => ({ agent: await allowReenrolment(database(), context, params.id) }),
);
