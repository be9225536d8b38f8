import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { revokeEnrollmentToken } from "@/modules/enrollment/lib/revoke-enrollment-token";
import { enrollmentTokenSummarySchema } from "@/modules/enrollment/types/api";

/** Revokes the token (it stays listed, marked revoked). */
export const DELETE = orgRoute(
  {
    summary: "Revoke an enrolment token",
    description: "It stays listed, marked revoked; revoking twice is harmless.",
    tag: "Enrolment",
    params: z.object({ id: z.string() }),
    permission: { enrollmentToken: ["revoke"] },
    response: z.object({ token: enrollmentTokenSummarySchema }),
  },
  async ({ context, params }) => ({ token: await revokeEnrollmentToken(database(), context, params.id) }),
);
