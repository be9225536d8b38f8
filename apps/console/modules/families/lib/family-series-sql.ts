// SQL that reads one metric family over a range in its aggregates' columns, from the family's
// descriptor (@spindle/domain, generated from catalogue.json): raw rows grouped per interval with
// the aggregate expressions themselves, or the 1-minute / 1-hour aggregate merged per bucket.
// Table and column names come from the descriptors, never from input.
import { rolledUpFamilies, type RolledUpFamily } from "@spindle/domain";

/**
 * The families a panel can draw: those whose hours merge their minutes by sum or maximum, so any
 * bucket is the sum (maximum) of what it holds. Memory's means have charts of their own.
 */
export const drawableFamilies: ReadonlyMap<string, RolledUpFamily> = new Map(
  rolledUpFamilies.filter((f) => f.aggregates.every((a) => a.merge === "sum" || a.merge === "max")).map((f) => [f.table, f]),
);

/** bucketSeconds: null reads raw rows, 60 the 1-minute aggregate, 3600 the 1-hour one (the window's source). */
export function familySeriesSql(family: RolledUpFamily, bucketSeconds: number | null): string {
  const keys = family.keys.map((k) => `s.${k}`);
  const groupBy = (time: string) => [time, ...keys].join(", ");
  const orderBy = (time: string) => [...keys, time].join(", ");
  if (bucketSeconds === null) {
    const columns = family.aggregates.map((a) => `(${a.fromRaw})::float8 AS ${a.name}`);
    return `SELECT extract(epoch FROM s.time)::float8 AS t${keys.map((k) => `, ${k}`).join("")}, ${columns.join(", ")}
FROM ${family.table} s
WHERE s.org_id = $1 AND s.server_id = $2 AND s.time > $3 AND s.time <= $4
GROUP BY ${groupBy("s.time")}
ORDER BY ${orderBy("s.time")}`;
  }
  const table = `${family.table}_${bucketSeconds === 60 ? "1m" : "1h"}`;
  const columns = family.aggregates.map((a) => `${a.merge === "max" ? "max" : "sum"}(s.${a.name})::float8 AS ${a.name}`);
  return `SELECT extract(epoch FROM s.bucket)::float8 AS t${keys.map((k) => `, ${k}`).join("")}, ${columns.join(", ")}
FROM ${table} s
WHERE s.org_id = $1 AND s.server_id = $2 AND s.bucket > $3 AND s.bucket <= $4
GROUP BY ${groupBy("s.bucket")}
ORDER BY ${orderBy("s.bucket")}`;
}
