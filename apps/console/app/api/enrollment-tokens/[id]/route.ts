import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { revokeEnrollmentToken } from "@/modules/enrollment/lib/revoke-enrollment-token";

/** Revokes the token (it stays listed, marked revoked). */
export const DELETE = orgRoute(
  { params: z.object({ id: z.string() }), permission: { enrollmentToken: ["revoke"] } },
  async ({ context, params }) => ({ token: await revokeEnrollmentToken(database(), context, params.id) }),
);
