import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { setServerTags } from "@/modules/policies/lib/set-server-tags";
import { serverTagsInput } from "@/modules/policies/types/policy";

/** Replaces the server's tags; they decide which tag policies apply to it. */
export const PUT = orgRoute(
  {
    summary: "Set a server's tags",
    description: "Replaces them; answered normalised (lowercase, unique, sorted).",
    tag: "Policies",
    params: z.object({ serverId: z.string() }),
    body: serverTagsInput,
    permission: { policy: ["assign"] },
    response: z.object({ tags: z.array(z.string()) }),
  },
  async ({ context, params, body }) => ({ tags: await setServerTags(database(), context, params.serverId, body) }),
);
