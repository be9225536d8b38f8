"use client";
import { formatNumber } from "@/lib/format";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import type { DatabaseSeries, DeepTelemetry, SqlServerSeries } from "../types/deep-telemetry";
import { Panel } from "./panel";

const notMeasured = "not measured";

/**
 * Database engines on the server: PostgreSQL per database (pg_stat_database) and SQL Server per
 * instance (its performance counters).
 */
export function DatabasePanel({ deep }: { deep: DeepTelemetry }) {
  const empty =
    deep.databases.length === 0 && deep.sqlServers.length === 0
      ? "No database statistics in this range. PostgreSQL: give the agent a connection in databases.postgresql of its configuration (a role with pg_monitor is enough). SQL Server (Windows): the agent reads the instance's performance counters by itself; check that the instance is running and its counters are enabled."
      : null;
  return (
    <Panel
      testId="panel-database"
      title="Databases"
      description="PostgreSQL from pg_stat_database: committed transactions per second, and the share of block requests served from shared buffers (hit / (hit + read)). SQL Server from its performance counters: batch requests per second, buffer cache hit ratio and page life expectancy."
      empty={empty}
    >
      <div className="grid gap-6">
        {deep.databases.map((db) => (
          <PostgresDatabase key={db.database} db={db} />
        ))}
        {deep.sqlServers.map((instance) => (
          <SqlServerInstance key={instance.instance} instance={instance} />
        ))}
      </div>
    </Panel>
  );
}

function PostgresDatabase({ db }: { db: DatabaseSeries }) {
  return (
    <section className="grid gap-3" data-testid="database" data-database={db.database}>
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
  );
}

function SqlServerInstance({ instance }: { instance: SqlServerSeries }) {
  const { overall } = instance;
  return (
    <section className="grid gap-3" data-testid="sqlserver-instance" data-instance={instance.instance}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="font-mono text-sm font-semibold">SQL Server {instance.instance}</h3>
        <span className="text-xs text-muted-foreground" data-testid="sqlserver-overall">
          over the range:{" "}
          {overall.batchRequestsPerSecond === null
            ? `batch requests ${notMeasured}`
            : `${formatNumber(overall.batchRequestsPerSecond)} batch requests/s`}{" "}
          ·{" "}
          {overall.bufferHitRatioPercent === null
            ? `buffer cache hit ratio ${notMeasured}`
            : `${formatNumber(overall.bufferHitRatioPercent)} % buffer cache hits`}{" "}
          ·{" "}
          {overall.pageLifeExpectancySeconds === null
            ? `page life expectancy ${notMeasured}`
            : `page life expectancy ${formatNumber(overall.pageLifeExpectancySeconds)} s`}
        </span>
      </div>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
        <UPlotChart
          title="Batch requests per second"
          unit="/s"
          time={instance.time}
          format={formatNumber}
          testId={{ chart: "sqlserver-batches", device: instance.instance }}
          series={[{ label: "Batch requests", color: "#2563eb", values: instance.batchRequestsPerSecond }]}
        />
        <UPlotChart
          title="Buffer cache hit ratio"
          unit="%"
          yRange={[0, 100]}
          time={instance.time}
          format={formatNumber}
          testId={{ chart: "sqlserver-hit-ratio", device: instance.instance }}
          series={[{ label: "Hit ratio", color: "#16a34a", values: instance.bufferHitRatioPercent }]}
        />
        <UPlotChart
          title="Page life expectancy"
          unit="s"
          time={instance.time}
          format={formatNumber}
          testId={{ chart: "sqlserver-page-life", device: instance.instance }}
          series={[{ label: "Page life expectancy", color: "#9333ea", values: instance.pageLifeExpectancySeconds }]}
        />
      </div>
    </section>
  );
}
