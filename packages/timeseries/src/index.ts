// SQL over the telemetry families that more than one app runs: the plain-mode rollups (the
// worker's job; the console's tests run them to fill aggregates) and the alert signal sources
// with the rule preview (the worker evaluates rules, the console previews them).
export { defaultParallelSources, rollupPending, type RollupOptions, type RollupResult } from "./rollup/rollup.js";
export {
  claimPendingSql,
  hourFromMinutesSql,
  lockServersSql,
  mergeableFamilies,
  minutesFromRawSql,
  rollupStatementsBySource,
} from "./rollup/rollup-sql.js";
export * from "./alerts/sources.js";
export * from "./alerts/preview.js";
