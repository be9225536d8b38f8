// What the console's probes answer: live while Next.js serves requests; ready only while the
// database answers within a short timeout, so a load balancer (or Kubernetes) stops sending users
// to a console that could only show errors.

export interface HealthAnswer {
  status: 200 | 503;
  body: { status: "ok" | "unavailable"; database?: "ok" | "unavailable"; error?: string };
}

export const readinessTimeoutMs = 2000;

/** Pings the database (`ping` resolves when it answered) and says whether the console is ready. */
export async function readiness(ping: () => Promise<unknown>, timeoutMs = readinessTimeoutMs): Promise<HealthAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([ping(), timeout]);
    return { status: 200, body: { status: "ok", database: "ok" } };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      status: 503,
      body: {
        status: "unavailable",
        database: "unavailable",
        error: `the console cannot reach its database (${reason}); check DATABASE_URL and that PostgreSQL is running`,
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
