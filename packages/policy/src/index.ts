export * from "./schema.js";
export * from "./parse.js";
export * from "./merge.js";
export * from "./layers.js";
export * from "./budget.js";
export * from "./json-schema.js";
export {
  formatPath,
  describeProblems,
  ruleProblemCodes,
  structuralProblemCodes,
  type Problem,
  type ProblemCode,
} from "./problems.js";
export { isManagedPath, matchesPattern, pathProblem, type PathKind } from "./paths.js";
