import type { Capabilities } from "../types/deep-telemetry";

/**
 * Why an eBPF panel has nothing to draw: the capability is missing (and what to do), the agent
 * never said what it can do, or it can but nothing happened in the range.
 */
export function whyEmpty(capabilities: Capabilities, capability: string, idle: string): string {
  if (capabilities.reportedAt === null) {
    return "No data in this range, and the agent has not reported what it can measure (an agent older than this console, or no batch yet).";
  }
  const item = capabilities.items.find((c) => c.name === capability);
  if (item && !item.available) return `${item.label}: missing on this server. ${item.whenMissing}`;
  return idle;
}
