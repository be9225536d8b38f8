import { z } from "zod";

const envSchema = z.object({
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
