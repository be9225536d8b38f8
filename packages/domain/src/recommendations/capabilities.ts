// A missing capability that hides evidence, with the exact step to enable it. Only what the
// agent itself reported missing, and only where enabling it buys something on this server:
//  - eBPF page-cache counters (hit ratio, per-file counters, miss-ratio curves): when the policy
//    turned eBPF off, Apply turns it back to "auto"; otherwise the step from the catalogue;
//  - PostgreSQL statistics: only on a server that reported them before and stopped.
import type { RecommendationFinding } from "./types.js";

export interface MissingCapabilityInput {
  serverId: string;
  /** What the newest capability report holds, and when it came. */
  reported: readonly string[];
  reportedAt: Date;
  ebpfMode: "on" | "auto" | "off";
  /** The catalogue's label and step for each capability name. */
  catalogue: ReadonlyMap<string, { label: string; whenMissing: string }>;
  /** The server sent PostgreSQL statistics at some point (pg_database_stats has rows). */
  hadPostgresqlStatistics: boolean;
}

function finding(
  input: MissingCapabilityInput,
  name: string,
  unlocks: string,
  change: RecommendationFinding["change"],
  steps: string,
): RecommendationFinding {
  const entry = input.catalogue.get(name);
  const label = entry?.label ?? name;
  return {
    kind: "enable_capability",
    serverId: input.serverId,
    subject: name,
    title: `Enable ${label}`,
    steps,
    change,
    evidence: {
      metric: "capabilities the agent reported",
      source: "agents.telemetry_capabilities (spindle.agent.capabilities)",
      window: { from: input.reportedAt.toISOString(), to: input.reportedAt.toISOString() },
      chart: { view: "capabilities", serverId: input.serverId, component: name },
      facts: [{ label: "reported", value: input.reported.length > 0 ? [...input.reported].sort().join(", ") : "nothing" }],
    },
    prediction: {
      metric: "none",
      before: null,
      after: null,
      summary: `unlocks ${unlocks}`,
      basis: `the agent's capability report of ${input.reportedAt.toISOString()}`,
    },
    confidence: { level: "high", tolerance: null, reason: "the agent reports each capability it could load, and why not otherwise" },
  };
}

export function missingCapabilityFindings(input: MissingCapabilityInput): RecommendationFinding[] {
  const works = new Set(input.reported);
  const findings: RecommendationFinding[] = [];
  if (!works.has("ebpf.page_cache")) {
    const unlocks = "the page-cache hit ratio, per-file counters, miss-ratio curves and the cache-size recommendations built on them";
    findings.push(
      input.ebpfMode === "off"
        ? finding(
            input,
            "ebpf.page_cache",
            unlocks,
            { type: "set_telemetry_ebpf", mode: "auto" },
            'The policy sets telemetry.ebpf to "off": Apply sets it to "auto", so the agent loads eBPF where the kernel allows.',
          )
        : finding(
            input,
            "ebpf.page_cache",
            unlocks,
            null,
            input.catalogue.get("ebpf.page_cache")?.whenMissing ?? "See spindle-agent status on the host.",
          ),
    );
  }
  if (!works.has("postgresql.statistics") && input.hadPostgresqlStatistics) {
    findings.push(
      finding(
        input,
        "postgresql.statistics",
        "PostgreSQL transactions per second and buffer hit ratio again",
        null,
        input.catalogue.get("postgresql.statistics")?.whenMissing ?? "Set databases.postgresql.dsn in agent.yaml.",
      ),
    );
  }
  return findings;
}
