// The console's HTTP server: Next.js behind the one piece of code that sees the TCP peer.
//   node apps/console/dist/server.js [-p 3000] [-H 0.0.0.0]     (after `npm run build`)
// `next start` cannot be used: it hands the application whatever X-Forwarded-For a client sent,
// so nothing could tell a forged client address from a proxy's (issue 25, M3). Here each
// request's client address is resolved from the peer and, only through the proxies in
// SPINDLE_TRUSTED_PROXIES, from X-Forwarded-For, before Next.js sees the request
// (lib/client-address.ts, rewriteForwardingHeaders).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { basename, dirname } from "node:path";
import { parseArgs } from "node:util";
import nextModule from "next";
import { markClientAddressResolved, rewriteForwardingHeaders, trustedProxies } from "./lib/client-address.js";
import { env } from "./lib/env.js";

// Next.js ships CommonJS: Node hands an ES import the function itself, while TypeScript's NodeNext
// view of its types puts it under .default. Either way, this is it.
type CreateNextApp = (options: { dev: boolean; dir: string; hostname?: string; port: number }) => {
  prepare(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
};
const imported = nextModule as unknown as CreateNextApp | { default: CreateNextApp };
const next: CreateNextApp = typeof imported === "function" ? imported : imported.default;

const { values } = parseArgs({
  options: {
    port: { type: "string", short: "p", default: "3000" },
    hostname: { type: "string", short: "H" },
    dev: { type: "boolean", default: false },
  },
});

async function main(): Promise<void> {
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`-p ${values.port} is not a port number (1-65535)`);
  const settings = env(); // a bad value stops here, with what to set
  const trusted = trustedProxies(settings.SPINDLE_TRUSTED_PROXIES);
  markClientAddressResolved();
  // dist/server.js and (in development, through tsx) server.ts both serve the app beside them.
  const dir = basename(import.meta.dirname) === "dist" ? dirname(import.meta.dirname) : import.meta.dirname;
  const app = next({ dev: values.dev, dir, hostname: values.hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => {
    rewriteForwardingHeaders(req.headers, req.socket.remoteAddress, trusted);
    void handle(req, res);
  });
  server.listen(port, values.hostname, () => {
    console.log(
      `spindle-console: listening on ${values.hostname ?? "*"}:${port}; ` +
        (trusted.entries.length
          ? `X-Forwarded-For believed from ${trusted.entries.join(", ")}`
          : "X-Forwarded-For ignored (no SPINDLE_TRUSTED_PROXIES)"),
    );
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(`spindle-console: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
