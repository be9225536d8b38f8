import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { allowReenrolment } from "@/modules/fleet/lib/server-lifecycle";

/** Lets one enrolment token take over this server's identity for the next hour (owner/admin). */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), permission: { server: ["revoke"] } },
  async ({ context, params }) => ({ agent: await allowReenrolment(database(), context, params.id) }),
);
