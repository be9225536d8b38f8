import { forbidden } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";

/** Who is changing policies: every operation is scoped to `orgId` and checks `role` itself. */
export type PolicyActor = Pick<OrgContext, "orgId" | "userId" | "role">;

type PolicyAction = "create" | "update" | "assign";

/**
 * The API routes check the same permission before calling; checking again here keeps an
 * operation safe whoever calls it (a page action, a script, a test).
 */
export function requirePolicyPermission(actor: PolicyActor, action: PolicyAction): void {
  if (!can(actor.role, { policy: [action] })) {
    throw forbidden(`Your role (${actor.role}) can read policies but not change them; ask an owner or admin.`);
  }
}
