// The Spindle worker: runs background jobs from the graphile-worker queue in PostgreSQL.
// It does not migrate: start-up scripts run `spindle-db migrate` before any service starts.
import { createPool, explainConnectionFailure, readTimeseriesMode } from "@spindle/db";
import { registerSecretsKey } from "@spindle/notify";
import { parseCrontab, run } from "graphile-worker";
import { parseEnv } from "./env.js";
import { startEffectivePolicyDelivery } from "./effective-policy-delivery.js";
import { logger } from "./logger.js";
import { startHealthServer } from "./health-server.js";
import { startNotificationQueueing } from "./notification-queueing.js";
import { deliverySettingsFromEnv } from "./notification-settings.js";
import {
  crontabFor,
  queueReadLatencySummary,
  startAlertInterval,
  startRecommendationsInterval,
  startRollupInterval,
  startUpgradeInterval,
} from "./schedule.js";
import { createTaskList } from "./tasks.js";
import { defaultParallelSources } from "@spindle/timeseries";
import { startRolloutDriving } from "./rollouts/task.js";

async function main(): Promise<void> {
  const env = parseEnv();
  const pool = createPool(env.DATABASE_URL, {
    applicationName: "spindle-worker",
    // The rollup job holds defaultParallelSources connections while it runs.
    max: env.SPINDLE_WORKER_CONCURRENCY + 1 + defaultParallelSources,
  });
  const timeseriesMode = await readTimeseriesMode(pool).catch((error: Error & { code?: string }) => {
    throw error.code ? explainConnectionFailure(env.DATABASE_URL, error) : error;
  });
  console.log(
    timeseriesMode === "plain"
      ? `time-series mode: plain; this worker maintains rollups (every ${env.SPINDLE_ROLLUP_INTERVAL_SECONDS || 60} s) and retention`
      : "time-series mode: timescaledb; TimescaleDB maintains aggregates and retention, so no rollup or retention jobs are scheduled",
  );

  const delivery = deliverySettingsFromEnv(env);
  if (delivery.secrets) {
    await registerSecretsKey(pool, delivery.secrets);
    console.log(`notification channel secrets are sealed to key ${delivery.secrets.kid}`);
  } else {
    console.warn(
      "SPINDLE_NOTIFY_SECRETS_KEY_FILE is not set: the console cannot save notification channels and sealed secrets cannot be " +
        "opened; make a key with `openssl genpkey -algorithm X25519 -out notify-key.pem` and give every worker the file",
    );
  }
  const runner = await run({
    pgPool: pool,
    concurrency: env.SPINDLE_WORKER_CONCURRENCY,
    taskList: createTaskList({
      pool,
      timeseriesMode,
      delivery,
      recommendations: { realiseAfterSeconds: env.SPINDLE_RECOMMENDATION_REALISE_AFTER_SECONDS },
      recommendationDigest: { periodSeconds: env.SPINDLE_RECOMMENDATION_DIGEST_SECONDS },
      rollouts: { settleSeconds: env.SPINDLE_ROLLOUT_SETTLE_SECONDS },
    }),
    parsedCronItems: parseCrontab(crontabFor(timeseriesMode)),
    noHandleSignals: true,
    logger,
  });
  const stopInterval =
    timeseriesMode === "plain"
      ? startRollupInterval(runner, env.SPINDLE_ROLLUP_INTERVAL_SECONDS, (error) =>
          console.error(`could not queue a rollup: ${error.message}`),
        )
      : () => {};
  const stopAlertInterval = startAlertInterval(runner, (error) => console.error(`could not queue an alert evaluation: ${error.message}`));
  const stopRecommendationsInterval = startRecommendationsInterval(runner, env.SPINDLE_RECOMMENDATION_REFRESH_SECONDS, (error) =>
    console.error(`could not queue a recommendations refresh: ${error.message}`),
  );
  const stopUpgradeInterval = startUpgradeInterval(runner, env.SPINDLE_UPGRADE_INTERVAL_SECONDS, (error) =>
    console.error(`could not queue an agent upgrade step: ${error.message}`),
  );
  await queueReadLatencySummary(runner).catch((error: Error) =>
    console.error(`could not queue the read latency summaries: ${error.message}`),
  );
  const stopPolicyDelivery = startEffectivePolicyDelivery(runner, env.DATABASE_URL);
  const stopNotificationQueueing = startNotificationQueueing(runner, pool, env.DATABASE_URL);
  const stopRolloutDriving = startRolloutDriving(runner, env.DATABASE_URL, env.SPINDLE_ROLLOUT_STEP_SECONDS);

  let runnerDone = false;
  runner.promise.finally(() => (runnerDone = true)).catch(() => {});
  const health = env.SPINDLE_WORKER_HEALTH_PORT
    ? await startHealthServer(env.SPINDLE_WORKER_HEALTH_PORT, { running: () => !runnerDone, ping: () => pool.query("SELECT 1") })
    : undefined;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing running jobs, then stopping`);
    stopInterval();
    stopAlertInterval();
    stopRecommendationsInterval();
    stopUpgradeInterval();
    await stopPolicyDelivery();
    await stopNotificationQueueing();
    await stopRolloutDriving();
    await runner.stop(signal);
    await health?.close();
    await pool.end();
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  await runner.promise;
}

main().catch((error: unknown) => {
  console.error(`spindle-worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
