export * from "./plan.js";
export * from "./waves.js";
export * from "./readings.js";
export * from "./hard-guards.js";
export * from "./comparative-guard.js";
