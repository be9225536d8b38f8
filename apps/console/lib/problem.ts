// Errors leave the API as RFC 9457 problem details (application/problem+json). Operations throw
// ProblemError; route handlers turn it (and anything unexpected) into a response.

export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly extra?: Record<string, unknown>,
    /** Response headers the problem needs, e.g. WWW-Authenticate on 401, Retry-After on 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(detail ?? title);
    this.name = "ProblemError";
  }
}

export const notFound = (what: string) => new ProblemError(404, "Not found", `${what} does not exist in your organisation.`);

export const forbidden = (detail: string) => new ProblemError(403, "Forbidden", detail);

export function problemResponse(error: unknown): Response {
  const problem =
    error instanceof ProblemError
      ? error
      : new ProblemError(
          500,
          "Internal server error",
          "Something went wrong on our side; try again, and check the console logs if it persists.",
        );
  if (!(error instanceof ProblemError)) console.error(error);
  return new Response(
    JSON.stringify({ type: "about:blank", status: problem.status, title: problem.title, detail: problem.detail, ...problem.extra }),
    { status: problem.status, headers: { ...problem.headers, "content-type": "application/problem+json" } },
  );
}
