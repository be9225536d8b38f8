import { Logger, type LogFunctionFactory } from "graphile-worker";

// graphile-worker reports every finished job at info level. The rollup job runs every few
// seconds on every worker, so its successes are demoted to debug (shown with SPINDLE_DEBUG=1);
// failures and every other job stay visible.
const noisySuccess = /^Completed task \d+ \(rollup,/;

const logFactory: LogFunctionFactory = (scope) => (level, message) => {
  if (level === "debug" && !process.env.SPINDLE_DEBUG) return;
  if (level === "info" && noisySuccess.test(message) && !process.env.SPINDLE_DEBUG) return;
  const where = scope.label ? `[${scope.label}${scope.workerId ? `(${scope.workerId})` : ""}] ` : "";
  const line = `${where}${level.toUpperCase()}: ${message}`;
  if (level === "error" || level === "warning") console.error(line);
  else console.log(line);
};

export const logger = new Logger(logFactory);
