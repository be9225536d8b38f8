"use client";
import { formatNumber } from "@/lib/format";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import type { DeepTelemetry } from "../types/deep-telemetry";
import { Panel } from "./panel";

/** PostgreSQL per database: transactions per second and the shared-buffer hit ratio. */
export function DatabasePanel({ deep }: { deep: DeepTelemetry }) {
  const empty = deep.databases.length === 0
    ? "No PostgreSQL statistics in this range. Give the agent a connection in databases.postgresql of its configuration (a role with pg_monitor is enough)."
    : null;
  return (
    <Panel
      testId="panel-database"
      title="Databases"
      description="From pg_stat_database: committed transactions per second, and the share of block requests served from shared buffers (hit / (hit + read))."
      empty={empty}
    >
      <div className="grid gap-6">
        {deep.databases.map((db) => (
          <section key={db.database} className="grid gap-3" data-testid="database" data-database={db.database}>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h3 className="font-mono text-sm font-semibold">{db.database}</h3>
              <span className="text-xs text-muted-foreground">
                over the range: {db.overall.transactionsPerSecond === null ? "—" : formatNumber(db.overall.transactionsPerSecond)} TPS ·{" "}
                {db.overall.bufferHitRatioPercent === null ? "—" : `${formatNumber(db.overall.bufferHitRatioPercent)} %`} buffer hits ·{" "}
                {db.overall.rollbacksPerSecond === null ? "—" : formatNumber(db.overall.rollbacksPerSecond)} rollbacks/s
              </span>
            </div>
            <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
              <UPlotChart
                title="Transactions per second"
                unit="TPS"
                time={db.time}
                format={formatNumber}
                testId={{ chart: "database-tps", device: db.database }}
                series={[{ label: "Commits", color: "#2563eb", values: db.transactionsPerSecond }]}
              />
              <UPlotChart
                title="Buffer hit ratio"
                unit="%"
                yRange={[0, 100]}
                time={db.time}
                format={formatNumber}
                testId={{ chart: "database-hit-ratio", device: db.database }}
                series={[{ label: "Hit ratio", color: "#16a34a", values: db.bufferHitRatioPercent }]}
              />
            </div>
          </section>
        ))}
      </div>
    </Panel>
  );
}
