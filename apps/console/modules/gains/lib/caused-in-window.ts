// What the read cache caused over one window (a verdict's after window): the gains estimate
// against its control group, at the resolution the window's length calls for (as the Gains
// section reads a range). Beside a before/after verdict it says how much of a change the cache's
// own pages account for, measured inside the window rather than across it.
import { causedStorageReads, type CausedStorageReads, type Measured } from "@spindle/domain";
import type { OrgSql } from "@/lib/db";
import { deviceBusy, holdoutSums, storageSums } from "./build-gains";
import { resolutionFor } from "./gains-range";
import {
  holdoutBucketsSql,
  holdoutUnitsSql,
  storageReadsSql,
  type HoldoutBucketRow,
  type HoldoutUnitRow,
  type StorageReadsRow,
} from "./gains-sql";

export async function causedReadsIn(
  sql: OrgSql,
  orgId: string,
  serverId: string,
  window: { from: Date; to: Date },
): Promise<Measured<CausedStorageReads>> {
  const { resolution } = resolutionFor((window.to.getTime() - window.from.getTime()) / 1000);
  const params = [orgId, [serverId], window.from, window.to];
  const [storage, holdout, buckets] = await Promise.all([
    sql.query<StorageReadsRow>(storageReadsSql(resolution), params),
    sql.query<HoldoutUnitRow>(holdoutUnitsSql(resolution), params),
    sql.query<HoldoutBucketRow>(holdoutBucketsSql(resolution), params),
  ]);
  return causedStorageReads(holdoutSums(holdout.rows, buckets.rows), storageSums(storage.rows), deviceBusy(storage.rows));
}
