// What an agent said about upgrading itself (agents.capabilities.upgrade, written by the gateway
// from the agent's OpAMP description); null from an agent too old to say.
import type { UpgradeCapability } from "../types/agent-upgrades";

export function upgradeCapability(capabilities: unknown): UpgradeCapability | null {
  if (typeof capabilities !== "object" || capabilities === null) return null;
  const upgrade = (capabilities as { upgrade?: unknown }).upgrade;
  if (typeof upgrade !== "object" || upgrade === null) return null;
  const { installMethod, remote, reason } = upgrade as Record<string, unknown>;
  if (typeof installMethod !== "string" || typeof remote !== "boolean") return null;
  return { installMethod, remote, reason: typeof reason === "string" ? reason : "" };
}
