// The metric catalogue, as TypeScript. Its source is packages/domain/metrics/catalogue.json;
// `npm run build -w @spindle/domain` (scripts/generate-catalogue.mjs) regenerates catalogue-data.ts
// from it, together with the Go catalogues of the agent and the gateway. docs/metrics.md is the
// prose twin; catalogue.test.ts fails if any copy is stale or the docs list other metrics.
import { capabilityCatalogue, metricCatalogue } from "./catalogue-data.js";
import type { CapabilityDefinition, MetricDefinition } from "./catalogue-types.js";

export type { CapabilityDefinition, MetricDefinition, MetricSource, MetricTable, MetricType } from "./catalogue-types.js";
export { capabilityCatalogue, metricCatalogue };

export type MetricName = (typeof metricCatalogue)[number]["name"];
export type CapabilityName = (typeof capabilityCatalogue)[number]["name"];

export function findMetric(name: string): MetricDefinition | undefined {
  return metricCatalogue.find((metric) => metric.name === name);
}

export function findCapability(name: string): CapabilityDefinition | undefined {
  return capabilityCatalogue.find((capability) => capability.name === name);
}

/** The explicit bounds of `spindle.disk.io.latency` in seconds: 2^0 … 2^26 µs, 28 buckets. */
export const diskLatencyBoundsSeconds: readonly number[] = metricCatalogue.find((m) => m.name === "spindle.disk.io.latency")!.bounds;
