import type { TimeseriesMode } from "@spindle/db";
import type { Runner, TaskSpec } from "graphile-worker";
import { alertEvaluationIntervalSeconds, alertsEvaluateJobSpec, alertsEvaluateTask } from "./alerts/task.js";
import { effectivePoliciesJobSpec, effectivePoliciesTask } from "./jobs/effective-policy-task.js";
import { notificationSweepTask } from "./jobs/notification-task.js";
import { recommendationsDigestJobSpec, recommendationsDigestTask } from "./recommendations/digest.js";
import { recommendationsRefreshJobSpec, recommendationsRefreshTask } from "./recommendations/task.js";
import { readLatencySummaryJobSpec, readLatencySummaryTask } from "./jobs/read-latency-summary.js";
import { curveRetentionTask } from "./jobs/retention.js";
import { agentUpgradesJobSpec, agentUpgradesTask } from "./upgrades/task.js";

/**
 * Rollup jobs share one queue (so across all worker processes only one runs at a time; the SQL
 * is safe in parallel, it would only be wasted work) and one job key (so a burst of requests
 * collapses into a single pending job).
 */
export const rollupJobSpec = { queueName: "telemetry-rollup", jobKey: "telemetry-rollup", maxAttempts: 3 } satisfies TaskSpec;

/**
 * The durable schedule, deduplicated across worker processes by graphile-worker: every five
 * minutes a full recompute of effective policies (the safety net under LISTEN/NOTIFY, which loses
 * what is sent while no worker listens), every minute alert evaluation (the 30-second ticks
 * in between come from startAlertInterval), a sweep of the notification outbox (rows whose
 * job was lost or whose worker died mid-send), every 15 minutes a refresh of recommendations
 * and, on the same queue after it, the recommendations digest (one per organisation and period),
 * every 5 minutes the fleet page's read latency summaries (both modes), and hourly the
 * miss-ratio curves' retention (a plain table in both modes); in plain mode also
 * rollup every minute and retention hourly (backfilled once after an outage of every worker).
 */
export function crontabFor(mode: TimeseriesMode): string {
  const all = effectivePoliciesJobSpec(null);
  const alerts = alertsEvaluateJobSpec;
  const lines = [
    `*/5 * * * * ${effectivePoliciesTask} ?jobKey=${all.jobKey}&max=${all.maxAttempts}`,
    `* * * * * ${alertsEvaluateTask} ?queue=${alerts.queueName}&jobKey=${alerts.jobKey}&max=${alerts.maxAttempts}`,
    `* * * * * ${notificationSweepTask} ?jobKey=${notificationSweepTask}&max=3`,
    `*/15 * * * * ${recommendationsRefreshTask} ?queue=${recommendationsRefreshJobSpec.queueName}&jobKey=${recommendationsRefreshJobSpec.jobKey}&max=${recommendationsRefreshJobSpec.maxAttempts}`,
    `*/15 * * * * ${recommendationsDigestTask} ?queue=${recommendationsDigestJobSpec.queueName}&jobKey=${recommendationsDigestJobSpec.jobKey}&max=${recommendationsDigestJobSpec.maxAttempts}`,
    `*/5 * * * * ${readLatencySummaryTask} ?queue=${readLatencySummaryJobSpec.queueName}&jobKey=${readLatencySummaryJobSpec.jobKey}&max=${readLatencySummaryJobSpec.maxAttempts}`,
    `23 * * * * ${curveRetentionTask} ?queue=telemetry-retention&max=3`,
    `* * * * * ${agentUpgradesTask} ?queue=${agentUpgradesJobSpec.queueName}&jobKey=${agentUpgradesJobSpec.jobKey}&max=${agentUpgradesJobSpec.maxAttempts}`,
  ];
  if (mode !== "plain") return lines.join("\n");
  return [
    ...lines,
    `* * * * * rollup ?queue=${rollupJobSpec.queueName}&jobKey=${rollupJobSpec.jobKey}&max=${rollupJobSpec.maxAttempts}`,
    // fill=1h: an hour's retention missed while every worker was down runs when one comes back;
    // graphile-worker's known_crontabs lets exactly one worker schedule each missed or due run.
    "17 * * * * retention ?queue=telemetry-retention&max=3&fill=1h",
  ].join("\n");
}

/**
 * The crontab's finest grain is a minute, which would leave the newest bucket of a 24 h chart
 * up to two minutes behind. Each worker process therefore also asks for a rollup every few
 * seconds; the job key folds these requests into one job, so more workers do not mean more
 * rollups. Returns a function that stops the interval.
 */
export function startRollupInterval(runner: Runner, intervalSeconds: number, onError: (error: Error) => void): () => void {
  if (intervalSeconds <= 0) return () => {};
  const timer = setInterval(() => {
    runner.addJob("rollup", {}, rollupJobSpec).catch(onError);
  }, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Alert rules are evaluated every 30 s, finer than the crontab's minute: each worker process
 * queues an evaluation every 30 s, folded by the job key into one job across the cluster, and
 * an evaluation of a tick already done does nothing. Returns a function that stops the interval.
 */
export function startAlertInterval(runner: Runner, onError: (error: Error) => void): () => void {
  const timer = setInterval(() => {
    runner.addJob(alertsEvaluateTask, {}, alertsEvaluateJobSpec).catch(onError);
  }, alertEvaluationIntervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Each worker process also asks for a recommendations refresh every `intervalSeconds` (and once
 * at start), folded by the job key into one job across the cluster. Returns a function that stops it.
 */
export function startRecommendationsInterval(runner: Runner, intervalSeconds: number, onError: (error: Error) => void): () => void {
  const queue = () => runner.addJob(recommendationsRefreshTask, {}, recommendationsRefreshJobSpec).catch(onError);
  void queue();
  const timer = setInterval(queue, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Agent upgrade rollouts advance at the crontab's minute and, from each worker process, every few
 * seconds (SPINDLE_UPGRADE_INTERVAL_SECONDS), so a wave that finished installing or soaking is not
 * held up to a minute; the job key folds the requests of every process into one job.
 */
export function startUpgradeInterval(runner: Runner, intervalSeconds: number, onError: (error: Error) => void): () => void {
  if (intervalSeconds <= 0) return () => {};
  const timer = setInterval(() => {
    runner.addJob(agentUpgradesTask, {}, agentUpgradesJobSpec).catch(onError);
  }, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The fleet page's latency summaries once at start (a fresh install, or a worker back after an
 * outage, shows them within seconds rather than at the next 5-minute mark), folded by the job
 * key with any run already queued.
 */
export async function queueReadLatencySummary(runner: Runner): Promise<void> {
  await runner.addJob(readLatencySummaryTask, {}, readLatencySummaryJobSpec);
}
