export * from "./version.js";
export * from "./plan.js";
export * from "./waves.js";
export * from "./eligibility.js";
