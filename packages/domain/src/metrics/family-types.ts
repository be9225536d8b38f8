// The shape of a metric family descriptor. The descriptors are generated into families-data.ts
// from the "families" of packages/domain/metrics/catalogue.json (scripts/families/); the worker
// builds its plain-mode rollups and retention from them, and tests and the console take their
// row types and COPY columns from there.

export type FamilyColumnType = "bigint" | "double precision" | "integer" | "smallint" | "text" | "uuid" | "timestamptz";

export interface FamilyColumn {
  name: string;
  type: FamilyColumnType;
  /** NULL means "not measured", never 0. */
  nullable: boolean;
  /** Interval families: what the column is in the row. */
  role?: "time" | "org" | "server" | "key" | "label" | "interval" | "measure" | "column";
}

/** How an hour is made from its minutes. "mean" weighs each minute's mean by its samples. */
export type FamilyMerge = "sum" | "max" | "min" | "mean";

export interface FamilyAggregate {
  /** The column of the 1-minute and 1-hour aggregates. */
  name: string;
  type: FamilyColumnType;
  nullable: boolean;
  fn: "sum" | "count" | "max" | "min" | "avg" | "sumProduct" | "sumWhereMeasured";
  /** The raw columns it reads ("*" for count(*)). */
  args: readonly string[];
  merge: FamilyMerge;
  /** Its value over raw rows aliased `s` of one bucket. */
  fromRaw: string;
  /** Its value over the minutes aliased `s` of one hour. */
  fromMinutes: string;
}

export interface FamilyStorage {
  /** TimescaleDB chunk interval of the raw table. */
  chunk: string;
  /** TimescaleDB compresses raw chunks older than this; null: never. */
  compressAfter: string | null;
  /** How long raw rows, 1-minute and 1-hour buckets are kept (both modes). */
  keepRaw: string;
  keep1m: string;
  keep1h: string;
}

export interface IntervalFamilyDefinition {
  table: string;
  migration: string;
  kind: "interval";
  what: string;
  /** The columns the aggregates group by, besides org_id and server_id. */
  keys: readonly string[];
  columns: readonly FamilyColumn[];
  /** null: no 1-minute and 1-hour aggregates. */
  aggregates: readonly FamilyAggregate[] | null;
  storage: FamilyStorage;
}

export interface ListFamilyDefinition {
  table: string;
  migration: string;
  kind: "list";
  what: string;
  columns: readonly FamilyColumn[];
}

export type FamilyDefinition = IntervalFamilyDefinition | ListFamilyDefinition;
