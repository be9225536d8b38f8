export * from "./measured.js";
export * from "./storage.js";
export * from "./reads.js";
export * from "./time-saved.js";
// The read cache's caused savings (issue 21): only the public face, so the helpers' names stay private.
export type { HoldoutBucketCounts, HoldoutBucketSums, HoldoutSums, HoldoutUnit } from "./caused-units.js";
export {
  causedReadsDefaults,
  causedReadsSaved,
  type BlockBootstrapInterval,
  type CausedReads,
  type HashBucketInterval,
} from "./caused-reads.js";
export { holdoutBuckets } from "./caused-buckets.js";
export { deviceSpareReads, type DeviceBusySums, type DeviceSpareReads } from "./caused-bound.js";
export {
  causedStorageReads,
  causedTimeSaved,
  ownPageHitsSaved,
  ownStorageReads,
  type CausedInterval,
  type CausedStorageReads,
  type CausedTimeSaved,
} from "./caused-time.js";
export * from "./fragments.js";
export * from "./ledger.js";
export * from "./verdict/index.js";
