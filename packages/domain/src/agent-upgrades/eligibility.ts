// Which servers an upgrade rollout offers the version to, and why it leaves the others out. The
// agent says in its OpAMP description whether it can replace itself (agents.capabilities.upgrade,
// docs/agent-protocol.md "Upgrades"): installs from a package manager or a container image are
// upgraded by that manager instead, and the console shows how.
import { compareAgentVersions } from "./version.js";

/** What the agent reported about upgrading itself; null from an agent too old to say. */
export interface AgentUpgradeCapability {
  installMethod: string;
  remote: boolean;
  reason: string;
}

export interface UpgradeSubject {
  id: string;
  tags: readonly string[];
  agentVersion: string;
  upgrade: AgentUpgradeCapability | null;
  pinnedVersion: string | null;
}

export type UpgradeDecision = { offer: true } | { offer: false; reason: string };

/** How an operator upgrades an agent installed by `method` when it cannot upgrade itself. */
export function manualUpgradeHint(method: string): string {
  switch (method) {
    case "deb":
      return "installed from the apt repository: upgrade it with apt-get install spindle-agent";
    case "rpm":
      return "installed from the yum repository: upgrade it with dnf upgrade spindle-agent";
    case "kubernetes":
      return "runs in Kubernetes: upgrade the chart's agent image (helm upgrade)";
    default:
      return "this agent cannot replace itself: run the installer again";
  }
}

export function upgradeDecision(server: UpgradeSubject, targetVersion: string): UpgradeDecision {
  if (server.pinnedVersion !== null) {
    return { offer: false, reason: `pinned to ${server.pinnedVersion}: remove the pin to include it` };
  }
  if (server.agentVersion !== "" && compareAgentVersions(server.agentVersion, targetVersion) === 0) {
    return { offer: false, reason: `already runs ${targetVersion}` };
  }
  if (server.upgrade === null) {
    return {
      offer: false,
      reason: `its agent (${server.agentVersion || "version unknown"}) cannot be upgraded over OpAMP: run the installer again once to get a version that can`,
    };
  }
  if (!server.upgrade.remote) {
    return { offer: false, reason: server.upgrade.reason || manualUpgradeHint(server.upgrade.installMethod) };
  }
  return { offer: true };
}
