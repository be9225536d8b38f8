import type { TimeseriesMode } from "@spindle/db";
import type { Task, TaskList } from "graphile-worker";
import type pg from "pg";
import { createEffectivePoliciesTask, effectivePoliciesTask } from "./jobs/effective-policy-task.js";
import type { DeliverySettings } from "./jobs/notification-delivery.js";
import { createDeliverNotificationTask, createNotificationSweepTask, deliverNotificationTask, notificationSweepTask } from "./jobs/notification-task.js";
import { deleteExpiredTelemetry } from "./jobs/retention.js";
import { rollupPending } from "./jobs/rollup.js";

export interface TaskDependencies {
  pool: pg.Pool;
  /** Read once at start-up: a database never changes mode while services run. */
  timeseriesMode: TimeseriesMode;
  delivery: DeliverySettings;
}

/**
 * Every job the worker runs, by name. Alert evaluation and recommendations (later issues)
 * register here beside notification delivery and the telemetry maintenance jobs.
 */
export function createTaskList(deps: TaskDependencies): TaskList {
  return {
    [effectivePoliciesTask]: createEffectivePoliciesTask(deps.pool),
    [deliverNotificationTask]: createDeliverNotificationTask(deps.pool, deps.delivery),
    [notificationSweepTask]: createNotificationSweepTask(deps.pool),
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
  };
}

/** In TimescaleDB mode continuous aggregates and retention policies do this work instead. */
function plainModeOnly(deps: TaskDependencies, name: string, task: Task): Task {
  let explained = false;
  return async (payload, helpers) => {
    if (deps.timeseriesMode === "plain") return task(payload, helpers);
    if (!explained) {
      helpers.logger.info(
        `${name}: nothing to do in timescaledb mode; TimescaleDB's continuous aggregates and policies maintain the data`,
      );
      explained = true;
    }
  };
}
