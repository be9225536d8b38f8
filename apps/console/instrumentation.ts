// Runs once when the server starts: a missing or bad environment variable stops `next start`
// here, with the list of what to set, instead of failing on the first request.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { env } = await import("./lib/env");
    env();
  }
}
