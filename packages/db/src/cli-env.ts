import { z } from "zod";
import { timeseriesModeRequestSchema } from "./migrate/timeseries-mode.js";

const serviceUrl = (name: string) =>
  z
    .string()
    .trim()
    .refine((value) => value === "" || /^postgres(ql)?:\/\//.test(value), {
      message: `${name} must be a postgres:// URL naming the service's login, e.g. postgres://spindle_console_login:<password>@db:5432/spindle`,
    })
    .optional()
    .transform((value) => value || undefined);

const cliEnvSchema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set: set it to the database to migrate, e.g. postgres://user:password@127.0.0.1:5432/spindle" })
    .trim()
    .min(1, "DATABASE_URL is empty: set it to the database to migrate, e.g. postgres://user:password@127.0.0.1:5432/spindle")
    .refine((value) => /^postgres(ql)?:\/\//.test(value), {
      message: "DATABASE_URL must be a postgres:// or postgresql:// URL, e.g. postgres://user:password@127.0.0.1:5432/spindle",
    }),
  // The services' own URLs (docs/configure.md, "Database roles"): their logins' passwords.
  SPINDLE_CONSOLE_DATABASE_URL: serviceUrl("SPINDLE_CONSOLE_DATABASE_URL"),
  SPINDLE_GATEWAY_DATABASE_URL: serviceUrl("SPINDLE_GATEWAY_DATABASE_URL"),
  SPINDLE_WORKER_DATABASE_URL: serviceUrl("SPINDLE_WORKER_DATABASE_URL"),
  SPINDLE_TIMESERIES_MODE: z
    .enum(timeseriesModeRequestSchema.options, {
      error: "SPINDLE_TIMESERIES_MODE must be auto, timescaledb or plain (or unset, which means auto)",
    })
    .default("auto"),
});

export type CliEnv = z.infer<typeof cliEnvSchema>;

/** Parses the CLI's environment once; a bad value becomes one message naming what to set. */
export function parseCliEnv(env: NodeJS.ProcessEnv): CliEnv {
  const result = cliEnvSchema.safeParse(env);
  if (!result.success) throw new Error(result.error.issues.map((issue) => issue.message).join("; "));
  return result.data;
}
