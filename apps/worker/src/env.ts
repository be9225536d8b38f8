import { z } from "zod";

const envSchema = z
  .object({
    DATABASE_URL: z
      .string({ error: "DATABASE_URL is not set: set it to the Spindle database, e.g. postgres://user:password@127.0.0.1:5432/spindle" })
      .trim()
      .refine((value) => /^postgres(ql)?:\/\/.+/.test(value), {
        message: "DATABASE_URL must be a postgres:// or postgresql:// URL, e.g. postgres://user:password@127.0.0.1:5432/spindle",
      }),
    SPINDLE_WORKER_CONCURRENCY: z.coerce
      .number({ error: "SPINDLE_WORKER_CONCURRENCY must be a whole number of jobs to run at once (default 4)" })
      .int()
      .min(1)
      .max(64)
      .default(4),
    // How often each worker process asks for a rollup on top of the per-minute crontab, so the
    // newest minute of a 24 h chart is at most this old. 0 leaves only the crontab.
    SPINDLE_ROLLUP_INTERVAL_SECONDS: z.coerce
      .number({ error: "SPINDLE_ROLLUP_INTERVAL_SECONDS must be a number of seconds (default 15; 0 turns the interval off)" })
      .int()
      .min(0)
      .max(3600)
      .default(15),
    // How often each worker process asks for agent upgrade rollouts to advance (src/upgrades), on top
    // of the per-minute crontab: a wave's next step waits at most this long.
    SPINDLE_UPGRADE_INTERVAL_SECONDS: z.coerce
      .number({ error: "SPINDLE_UPGRADE_INTERVAL_SECONDS must be a number of seconds (default 15; 0 leaves only the per-minute crontab)" })
      .int()
      .min(0)
      .max(3600)
      .default(15),
    // Port of the /livez and /readyz probes (src/health-server.ts); 0 serves none.
    SPINDLE_WORKER_HEALTH_PORT: z.coerce
      .number({ error: "SPINDLE_WORKER_HEALTH_PORT must be a TCP port for the health probes (default 0: none)" })
      .int()
      .min(0)
      .max(65535)
      .default(0),
    // Recommendations (docs/recommendations.md): how often each worker process asks for a refresh
    // (the crontab adds one every 15 minutes), and how long after the agent applied a recommendation
    // its realised effect is measured.
    SPINDLE_RECOMMENDATION_REFRESH_SECONDS: z.coerce
      .number({ error: "SPINDLE_RECOMMENDATION_REFRESH_SECONDS must be a number of seconds (default 900)" })
      .int()
      .min(5)
      .max(86_400)
      .default(900),
    // Below ten minutes the after window holds too few samples to judge a prediction by on most
    // hosts; the short end is for tests and demonstrations on a driven workload.
    SPINDLE_RECOMMENDATION_REALISE_AFTER_SECONDS: z.coerce
      .number({ error: "SPINDLE_RECOMMENDATION_REALISE_AFTER_SECONDS must be a number of seconds, at least 20 (default 86400)" })
      .int()
      .min(20)
      .max(7 * 86_400)
      .default(86_400),
    // The recommendations digest (docs/recommendations.md, "Digest"): at most one per organisation per period.
    SPINDLE_RECOMMENDATION_DIGEST_SECONDS: z.coerce
      .number({ error: "SPINDLE_RECOMMENDATION_DIGEST_SECONDS must be a number of seconds, 60 to 604800 (default 86400)" })
      .int()
      .min(60)
      .max(7 * 86_400)
      .default(86_400),
    // Staged rollouts (docs/policy.md, "Rollouts"): how often each worker process steps them (a
    // change a person makes wakes them at once), and how long after a guard window ends its
    // telemetry is read (an agent's last batch of the window is still on its way).
    SPINDLE_ROLLOUT_STEP_SECONDS: z.coerce
      .number({ error: "SPINDLE_ROLLOUT_STEP_SECONDS must be a number of seconds, 1 to 300 (default 5)" })
      .int()
      .min(1)
      .max(300)
      .default(5),
    SPINDLE_ROLLOUT_SETTLE_SECONDS: z.coerce
      .number({ error: "SPINDLE_ROLLOUT_SETTLE_SECONDS must be a number of seconds, 0 to 600 (default 30)" })
      .int()
      .min(0)
      .max(600)
      .default(30),
    // Notifications (docs/notifications.md, "Delivery").
    SPINDLE_CONSOLE_URL: z
      .url({
        protocol: /^https?$/,
        error: "SPINDLE_CONSOLE_URL must be the console's public http(s) URL, e.g. https://spindle.example.com",
      })
      .default("http://localhost:3000"),
    SPINDLE_NOTIFY_SEND_TIMEOUT_SECONDS: z.coerce
      .number({ error: "SPINDLE_NOTIFY_SEND_TIMEOUT_SECONDS must be a number of seconds (default 15)" })
      .min(0.1)
      .max(120)
      .default(15),
    SPINDLE_NOTIFY_RETRY_BASE_SECONDS: z.coerce
      .number({ error: "SPINDLE_NOTIFY_RETRY_BASE_SECONDS must be a number of seconds (default 10)" })
      .min(0.05)
      .max(3600)
      .default(10),
    SPINDLE_NOTIFY_RETRY_MAX_SECONDS: z.coerce
      .number({ error: "SPINDLE_NOTIFY_RETRY_MAX_SECONDS must be a number of seconds (default 900)" })
      .min(0.05)
      .max(86_400)
      .default(900),
    SPINDLE_NOTIFY_MAX_ATTEMPTS: z.coerce
      .number({ error: "SPINDLE_NOTIFY_MAX_ATTEMPTS must be a whole number of attempts (default 25)" })
      .int()
      .min(1)
      .max(1000)
      .default(25),
    // The X25519 private key (PEM) channel secrets are sealed to; every worker needs the same one.
    SPINDLE_NOTIFY_SECRETS_KEY_FILE: z
      .string({ error: "SPINDLE_NOTIFY_SECRETS_KEY_FILE must be the path of a PEM file (openssl genpkey -algorithm X25519)" })
      .trim()
      .min(1)
      .optional(),
    SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: z
      .enum(["true", "false"], { error: "SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS must be true or false (default false)" })
      .default("false")
      .transform((value) => value === "true"),
  })
  .refine((env) => env.SPINDLE_NOTIFY_RETRY_MAX_SECONDS >= env.SPINDLE_NOTIFY_RETRY_BASE_SECONDS, {
    message: "SPINDLE_NOTIFY_RETRY_MAX_SECONDS must not be below SPINDLE_NOTIFY_RETRY_BASE_SECONDS",
  });

export type WorkerEnv = z.infer<typeof envSchema>;

/** The only place the worker reads process.env; a bad value stops start-up with what to set. */
export function parseEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    throw new Error(`invalid worker configuration: ${result.error.issues.map((issue) => issue.message).join("; ")}`);
  }
  return result.data;
}
