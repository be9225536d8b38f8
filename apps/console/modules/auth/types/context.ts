import type { RoleName } from "../lib/access";

/** Who is asking, and in which organisation: every operation is scoped by `orgId`. */
export interface OrgContext {
  userId: string;
  userName: string;
  userEmail: string;
  orgId: string;
  orgName: string;
  role: RoleName;
}
