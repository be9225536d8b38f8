export * from "./metrics/catalogue.js";
export * from "./metrics/derive.js";
export * from "./metrics/latency.js";
export * from "./metrics/ratios.js";
export * from "./gains/index.js";
export * from "./alerts/index.js";
export * from "./recommendations/index.js";
export * from "./rollouts/index.js";
