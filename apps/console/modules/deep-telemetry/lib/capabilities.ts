import { capabilityCatalogue } from "@spindle/domain";
import type { Capabilities } from "../types/deep-telemetry";

/**
 * Every capability the catalogue knows, marked available when the agent reported it. The agent
 * sends only what works; what is missing is the rest of the catalogue, explained with the
 * catalogue's usual cause (the agent's `spindle-agent status` says exactly why on the host).
 */
export function describeCapabilities(reported: readonly string[], reportedAt: Date | null): Capabilities {
  const works = new Set(reported);
  return {
    reportedAt: reportedAt?.toISOString() ?? null,
    items: capabilityCatalogue.map((capability) => ({
      name: capability.name,
      label: capability.label,
      available: works.has(capability.name),
      whenMissing: works.has(capability.name) ? "" : capability.whenMissing,
    })),
  };
}
