export * from "./metrics/catalogue.js";
export * from "./metrics/derive.js";
