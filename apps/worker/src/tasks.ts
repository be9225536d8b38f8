import type { TimeseriesMode } from "@spindle/db";
import { enqueueTransitionGroup } from "@spindle/notify";
import type { Task, TaskList } from "graphile-worker";
import type pg from "pg";
import { alertsEvaluateTask, createAlertsEvaluateTask } from "./alerts/task.js";
import type { OnAlertTransition } from "./alerts/evaluate.js";
import { createEffectivePoliciesTask, effectivePoliciesTask } from "./jobs/effective-policy-task.js";
import type { DeliverySettings } from "./jobs/notification-delivery.js";
import {
  createDeliverNotificationTask,
  createNotificationSweepTask,
  deliverNotificationTask,
  notificationSweepTask,
} from "./jobs/notification-task.js";
import { refreshReadLatencySummaries, readLatencySummaryTask } from "./jobs/read-latency-summary.js";
import { curveRetentionTask, deleteExpiredCurves, deleteExpiredTelemetry } from "./jobs/retention.js";
import { rollupPending } from "@spindle/timeseries";
import { createRecommendationsDigestTask, recommendationsDigestTask, type DigestSettings } from "./recommendations/digest.js";
import { createRecommendationsRefreshTask, recommendationsRefreshTask } from "./recommendations/task.js";
import { agentUpgradesTask, createAgentUpgradesTask } from "./upgrades/task.js";
import type { RefreshSettings } from "./recommendations/refresh.js";
import type { StepSettings } from "./rollouts/advance.js";
import { createRolloutsAdvanceTask, rolloutsAdvanceTask } from "./rollouts/task.js";

export interface TaskDependencies {
  pool: pg.Pool;
  /** Read once at start-up: a database never changes mode while services run. */
  timeseriesMode: TimeseriesMode;
  /**
   * Receives each rule's state changes inside the evaluation's transaction; by default the
   * notification outbox, so a change and its notifications commit together or not at all.
   */
  onAlertTransition?: OnAlertTransition;
  delivery: DeliverySettings;
  /** Defaults to measuring the realised effect a day after the agent applied a recommendation. */
  recommendations?: RefreshSettings;
  /** Defaults to one recommendations digest per organisation per day. */
  recommendationDigest?: DigestSettings;
  /** Defaults to reading a guard window 30 s after it ends (telemetry still arriving). */
  rollouts?: StepSettings;
}

/** Every job the worker runs, by name. */
export function createTaskList(deps: TaskDependencies): TaskList {
  return {
    [effectivePoliciesTask]: createEffectivePoliciesTask(deps.pool),
    [alertsEvaluateTask]: createAlertsEvaluateTask(deps.pool, deps.onAlertTransition ?? notificationOutbox),
    [deliverNotificationTask]: createDeliverNotificationTask(deps.pool, deps.delivery),
    [notificationSweepTask]: createNotificationSweepTask(deps.pool),
    [recommendationsRefreshTask]: createRecommendationsRefreshTask(deps.pool, deps.recommendations ?? { realiseAfterSeconds: 86_400 }),
    [agentUpgradesTask]: createAgentUpgradesTask(deps.pool, deps.rollouts ?? { settleSeconds: 30 }),
    [recommendationsDigestTask]: createRecommendationsDigestTask(deps.pool, deps.recommendationDigest ?? { periodSeconds: 86_400 }),
    [rolloutsAdvanceTask]: createRolloutsAdvanceTask(deps.pool, deps.rollouts ?? { settleSeconds: 30 }),
    rollup: plainModeOnly(deps, "rollup", async (_payload, helpers) => {
      const result = await rollupPending(deps.pool);
      if (result.rangesProcessed > 0) {
        helpers.logger.debug(`rolled up ${result.rangesProcessed} pending range(s) for ${result.serversRolledUp} server(s)`);
      }
    }),
    retention: plainModeOnly(deps, "retention", async (_payload, helpers) => {
      const deleted = await deleteExpiredTelemetry(deps.pool);
      const summary = Object.entries(deleted).filter(([, rows]) => rows > 0);
      if (summary.length > 0) {
        helpers.logger.info(`retention deleted ${summary.map(([table, rows]) => `${rows} from ${table}`).join(", ")}`);
      }
    }),
    [readLatencySummaryTask]: async (_payload, helpers) => {
      const { servers, removed } = await refreshReadLatencySummaries(deps.pool);
      helpers.logger.debug(`read latency summaries: ${servers} server(s) with reads in the last hour, ${removed} without any now`);
    },
    [curveRetentionTask]: async (_payload, helpers) => {
      const deleted = await deleteExpiredCurves(deps.pool);
      if (deleted > 0) helpers.logger.info(`curve retention deleted ${deleted} miss-ratio curves older than 90 days`);
    },
  };
}

const notificationOutbox: OnAlertTransition = async (tx, group) => {
  await enqueueTransitionGroup(tx, group);
};

/** In TimescaleDB mode continuous aggregates and retention policies do this work instead. */
function plainModeOnly(deps: TaskDependencies, name: string, task: Task): Task {
  let explained = false;
  return async (payload, helpers) => {
    if (deps.timeseriesMode === "plain") return task(payload, helpers);
    if (!explained) {
      helpers.logger.info(`${name}: nothing to do in timescaledb mode; TimescaleDB's continuous aggregates and policies maintain the data`);
      explained = true;
    }
  };
}
