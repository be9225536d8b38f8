import type { Author } from "@/modules/policies/types/policy";

/** One audit_log row for display: who did what, when, to what. */
export interface AuditEntry {
  id: string;
  at: string;
  actor: Author | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
  /** The API token the change was made with; `name` is null once the token is deleted. */
  apiToken: { id: string; name: string | null } | null;
}
