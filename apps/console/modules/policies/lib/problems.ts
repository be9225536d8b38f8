import type { Problem } from "@spindle/policy";
import { ProblemError } from "@/lib/problem";

/** A refused policy document: 422 with every problem's path, code and message for inline display. */
export function invalidPolicy(problems: readonly Problem[]): ProblemError {
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  return new ProblemError(422, "Invalid policy", `The policy has ${count}; fix the fields marked and save again.`, {
    errors: problems.map(({ path, code, message }) => ({ path, code, message })),
  });
}

/** Prisma's unique-constraint error, whatever the driver adapter wraps it in. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === "P2002";
}
