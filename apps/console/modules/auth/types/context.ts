import type { RoleName } from "../lib/access";

/** Who is asking, and in which organisation: every operation is scoped by `orgId`. */
export interface OrgContext {
  userId: string;
  userName: string;
  userEmail: string;
  orgId: string;
  orgName: string;
  role: RoleName;
  /** Set when the request carried an API token instead of a session: it acts for `userId`. */
  apiToken?: { id: string; name: string };
}
