// The worker's probes over HTTP (it serves nothing else): /livez while its job runner runs,
// /readyz while the database also answers within a short timeout. Off unless
// SPINDLE_WORKER_HEALTH_PORT is set (Kubernetes sets it; docs/install.md).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface HealthChecks {
  /** False once the runner stopped or failed: the process should be restarted. */
  running: () => boolean;
  /** Resolves when the database answered a trivial query. */
  ping: () => Promise<unknown>;
  timeoutMs?: number;
}

export interface HealthServer {
  port: number;
  close: () => Promise<void>;
}

export async function startHealthServer(port: number, checks: HealthChecks, host = "0.0.0.0"): Promise<HealthServer> {
  const timeoutMs = checks.timeoutMs ?? 2000;
  const server = createServer((request, response) => {
    const answer = (status: number, body: Record<string, string>) => {
      response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      response.end(JSON.stringify(body));
    };
    if (request.method !== "GET") return answer(405, { error: "use GET" });
    if (request.url === "/livez") return checks.running() ? answer(200, { status: "ok" }) : answer(503, { status: "stopped" });
    if (request.url !== "/readyz") return answer(404, { error: "the worker serves /livez and /readyz only" });
    if (!checks.running()) return answer(503, { status: "stopped" });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
    );
    Promise.race([checks.ping(), timeout])
      .then(
        () => answer(200, { status: "ok", database: "ok" }),
        (error: Error) =>
          answer(503, {
            status: "unavailable",
            database: "unavailable",
            error: `the worker cannot reach its database (${error.message}); check DATABASE_URL and that PostgreSQL is running`,
          }),
      )
      .finally(() => clearTimeout(timer));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
