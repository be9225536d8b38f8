export * from "./signals.js";
export * from "./schema.js";
export * from "./state-machine.js";
export * from "./observe.js";
export * from "./defaults.js";
export * from "./preview.js";
export * from "./transition.js";
