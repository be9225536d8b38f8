// The metric families, as TypeScript: one descriptor per table, generated from the "families"
// of packages/domain/metrics/catalogue.json into families-data.ts (with row types and COPY
// column lists), and the lists the worker builds its plain-mode rollups and retention from.
import { familyCatalogue } from "./families-data.js";
import type { FamilyDefinition, IntervalFamilyDefinition } from "./family-types.js";

export * from "./families-data.js";
export type {
  FamilyAggregate,
  FamilyColumn,
  FamilyDefinition,
  FamilyMerge,
  FamilyStorage,
  IntervalFamilyDefinition,
  ListFamilyDefinition,
} from "./family-types.js";

const families: readonly FamilyDefinition[] = familyCatalogue;

/** A family with 1-minute and 1-hour aggregates. */
export type RolledUpFamily = IntervalFamilyDefinition & { aggregates: NonNullable<IntervalFamilyDefinition["aggregates"]> };

/** Every family with aggregates, in migration order: plain mode's rollup sources. */
export const rolledUpFamilies: readonly RolledUpFamily[] = families.filter(
  (f): f is RolledUpFamily => f.kind === "interval" && f.aggregates !== null,
);

/** Every interval family, in migration order. */
export const intervalFamilies: readonly IntervalFamilyDefinition[] = families.filter(
  (f): f is IntervalFamilyDefinition => f.kind === "interval",
);

export function findFamily(table: string): FamilyDefinition | undefined {
  return families.find((f) => f.table === table);
}

/** How long each interval table keeps rows: the raw table by `time`, the aggregates by `bucket`. */
export const familyRetention: readonly { table: string; timeColumn: "time" | "bucket"; keep: string }[] = intervalFamilies.flatMap((f) => [
  { table: f.table, timeColumn: "time" as const, keep: f.storage.keepRaw },
  ...(f.aggregates
    ? [
        { table: `${f.table}_1m`, timeColumn: "bucket" as const, keep: f.storage.keep1m },
        { table: `${f.table}_1h`, timeColumn: "bucket" as const, keep: f.storage.keep1h },
      ]
    : []),
]);
