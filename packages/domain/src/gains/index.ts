export * from "./measured.js";
export * from "./storage.js";
export * from "./reads.js";
export * from "./time-saved.js";
export * from "./fragments.js";
export * from "./ledger.js";
export * from "./verdict/index.js";
