import { z } from "zod";
import { isoDateTime } from "@/lib/openapi/schemas";

export const membersSchema = z.object({
  members: z.array(
    z.object({
      id: z.string(),
      userId: z.string(),
      name: z.string(),
      email: z.string(),
      role: z.enum(["owner", "admin", "viewer"]),
      joinedAt: isoDateTime,
    }),
  ),
  invitations: z.array(z.object({ id: z.string(), email: z.string(), role: z.enum(["owner", "admin", "viewer"]), expiresAt: isoDateTime })),
});
