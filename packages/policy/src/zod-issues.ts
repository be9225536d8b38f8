import type { z } from "zod";
import { formatLimit, formatPath, type PathSegment, type Problem, type ProblemCode } from "./problems.js";

// Turns zod's issues into the contract's problems. zod's own codes are not the contract: they
// change between zod versions and the Go agent cannot produce them, so each is mapped here to
// a stable code with a message written for the person editing the policy.

type Lookup = { found: true; value: unknown } | { found: false };

function lookup(input: unknown, path: readonly PathSegment[]): Lookup {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return { found: false };
    if (!Object.hasOwn(value, segment)) return { found: false };
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  return { found: true, value };
}

/** The JSON type of a value, as messages name it. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "object":
      return "an object";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "boolean":
      return "a boolean";
    default:
      return typeof value;
  }
}

const expectedNames: Record<string, string> = {
  object: "an object",
  array: "an array",
  number: "a number",
  string: "a string",
  boolean: "a boolean",
};

function toSegments(path: readonly PropertyKey[]): PathSegment[] {
  return path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment));
}

export function problemsFromIssues(issues: readonly z.core.$ZodIssue[], input: unknown): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const segments = toSegments(issue.path);
    const path = formatPath(segments);
    const fieldName = segments[segments.length - 1];
    const add = (code: ProblemCode, message: string) => problems.push({ path, code, message });
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys) {
          problems.push({
            path: formatPath([...segments, key]),
            code: "unknown_field",
            message: "is not a policy field: check its spelling and section against the policy reference",
          });
        }
        break;
      case "invalid_type": {
        const at = lookup(input, segments);
        if (!at.found) add("required", "is required");
        else if (issue.expected === "int") add("not_integer", "must be a whole number");
        else add("invalid_type", `must be ${expectedNames[issue.expected] ?? issue.expected}, not ${jsonTypeName(at.value)}`);
        break;
      }
      case "too_small":
      case "too_big": {
        // Every integer field has its own limits well inside the safe-integer range, so zod's
        // extra safe-integer issue would only repeat the field's own too_small / too_big.
        if (issue.origin === "int") break;
        const limit = Number(issue.code === "too_small" ? issue.minimum : issue.maximum);
        if (issue.origin === "array") add(issue.code, `must have at most ${limit} entries`);
        else if (issue.code === "too_small") add("too_small", `must be at least ${formatLimit(fieldName, limit)}`);
        else add("too_big", `must be at most ${formatLimit(fieldName, limit)}`);
        break;
      }
      case "invalid_value":
        if (!lookup(input, segments).found) add("required", "is required");
        else if (path === "schemaVersion") {
          add("unsupported_schema_version", "must be 1: this version of Spindle understands schemaVersion 1 only");
        } else {
          add("invalid_value", `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`);
        }
        break;
      case "custom":
        add((issue.params?.code as ProblemCode | undefined) ?? "invalid_value", issue.message);
        break;
      default:
        add("invalid_value", issue.message);
    }
  }
  return problems;
}
