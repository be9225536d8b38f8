export * from "./random.js";
export * from "./ratio.js";
export * from "./student-t.js";
export * from "./holm.js";
export * from "./autocorrelation.js";
export * from "./block-bootstrap.js";
export * from "./median.js";
