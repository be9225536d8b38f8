/** Bad input from a user (a form, an API call): the console answers 400 with `problems`. */
export class NotifyInputError extends Error {
  constructor(
    summary: string,
    readonly problems: string[],
  ) {
    super(`${summary}: ${problems.join("; ")}`);
    this.name = "NotifyInputError";
  }
}

/** Zod issues as "field: message" lines. */
export function problemsOf(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, root: string): string[] {
  return issues.map((issue) => `${issue.path.map(String).join(".") || root}: ${issue.message}`);
}
