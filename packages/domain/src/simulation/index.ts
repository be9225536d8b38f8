export * from "./harness.js";
export * from "./latency-model.js";
export * from "./latency-scenarios.js";
export * from "./verdict-worlds.js";
export * from "./verdict-configurations.js";
export * from "./caused-worlds.js";
