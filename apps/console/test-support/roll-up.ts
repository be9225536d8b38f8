// Brings the aggregates up to date after a test inserted raw rows, the way production does: on
// TimescaleDB they are continuous aggregates and a refresh does it; on plain PostgreSQL they
// are tables that the worker's rollup job maintains, and that job runs here.
import { readTimeseriesMode } from "@spindle/db";
import { rolledUpFamilies } from "@spindle/domain";
import { rollupPending } from "@spindle/timeseries";
import type { Pool } from "@/lib/db";

const continuousAggregates = rolledUpFamilies.flatMap((family) => [`${family.table}_1m`, `${family.table}_1h`]);

export async function rollUpAggregates(pool: Pool): Promise<void> {
  if ((await readTimeseriesMode(pool)) === "plain") {
    await rollupPending(pool);
    return;
  }
  for (const view of continuousAggregates) {
    await pool.query(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
  }
}
