// How an upgrade's scope reads in the console and the audit log (safe in the browser).
import type { AgentUpgradeScope } from "@spindle/domain";

/** How a scope reads in the console and the audit log. */
export function describeScope(scope: AgentUpgradeScope): string {
  switch (scope.kind) {
    case "organization":
      return "every server";
    case "tag":
      return `servers tagged ${scope.tag}`;
    case "servers":
      return scope.serverIds.length === 1 ? "1 chosen server" : `${scope.serverIds.length} chosen servers`;
  }
}
