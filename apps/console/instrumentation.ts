// Runs once when the server starts: a missing or bad environment variable stops the console
// here, with the list of what to set, instead of failing on the first request; and a production
// console started any other way than server.ts (`next start`, say) refuses to start, because only
// server.ts tells a client's forged X-Forwarded-For from a trusted proxy's (lib/client-address.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { env } = await import("./lib/env");
    env();
    const { clientAddressResolved } = await import("./lib/client-address");
    if (process.env.NODE_ENV === "production" && !clientAddressResolved()) {
      // Next.js logs an error thrown here and goes on serving, so the refusal must end the process.
      console.error(
        "error: the Spindle console must be started with `node apps/console/dist/server.js -p <port>` " +
          "(npm start -w @spindle/console), not `next start`, which believes any client's X-Forwarded-For",
      );
      process.exit(1);
    }
  }
}
