// The words every channel shares, so an alert reads the same in e-mail, chat and paging.
import { createHash } from "node:crypto";
import type { AlertNotice } from "../notice.js";
import type { NotificationToRender, RenderContext } from "./message.js";

const stateWords = { firing: "FIRING", ok: "RESOLVED", no_data: "NO DATA" } as const;

export function stateWord(notice: AlertNotice): string {
  return stateWords[notice.state.to];
}

/** "db-01 sda", "db-01", or "the organisation" for a fleet-wide rule. */
export function subjectText(notice: Pick<AlertNotice, "subject">): string {
  const server = notice.subject.serverName ?? notice.subject.serverId;
  if (!server) return notice.subject.device ? `device ${notice.subject.device}` : "the organisation";
  return notice.subject.device ? `${server} ${notice.subject.device}` : server;
}

/** How many subjects one message is about (a grouped message lists the others). */
export function subjectCount(notice: AlertNotice): number {
  return 1 + notice.also.length + notice.alsoUnlisted;
}

/** "db-01 sda", or "db-01 sda and 29 more" for a grouped message. */
function subjectsText(notice: AlertNotice): string {
  const others = subjectCount(notice) - 1;
  return others === 0 ? subjectText(notice) : `${subjectText(notice)} and ${others} more`;
}

export function titleOf(message: NotificationToRender): string {
  if (message.purpose === "test") return `Test notification for channel "${message.channelName}"`;
  const { notice } = message;
  return `[${stateWord(notice)} · ${notice.severity}] ${notice.rule.name} on ${subjectsText(notice)}`;
}

const numberFormat = new Intl.NumberFormat("en", { maximumFractionDigits: 2, useGrouping: true });

function withUnit(value: number, unit: string): string {
  return unit ? `${numberFormat.format(value)} ${unit}` : numberFormat.format(value);
}

/** "42.5 ms (threshold > 20 ms)"; a missing value says why instead of printing 0. */
export function valueText(notice: AlertNotice, value: number | null = notice.value): string {
  const threshold =
    notice.threshold !== null
      ? ` (threshold ${notice.comparison ? `${notice.comparison} ` : ""}${withUnit(notice.threshold, notice.unit)})`
      : "";
  if (value === null) {
    return `${notice.state.to === "no_data" ? "no data" : "not measured"}${threshold}`;
  }
  return `${withUnit(value, notice.unit)}${threshold}`;
}

export function linkOf(notice: AlertNotice, context: RenderContext): string {
  return new URL(notice.linkPath, context.consoleUrl).toString();
}

/** Facts in display order, shared by e-mail, Slack, Teams and PagerDuty's custom details. */
export function factsOf(message: NotificationToRender): Array<[string, string]> {
  const { notice } = message;
  if (message.purpose === "test") {
    return [
      ["Channel", message.channelName],
      ["Sent at", notice.at],
    ];
  }
  const facts: Array<[string, string]> = [
    ["State", `${stateWord(notice)} (was ${notice.state.from})`],
    ["Severity", notice.severity],
    ["Value", valueText(notice)],
  ];
  if (notice.basis) facts.push(["Measured from", notice.basis]);
  facts.push(["Subject", subjectsText(notice)]);
  if (notice.subject.tags.length > 0) facts.push(["Tags", notice.subject.tags.join(", ")]);
  if (notice.startedAt) facts.push(["Started", notice.startedAt]);
  facts.push(["Changed", notice.at]);
  return facts;
}

export function bodyTextOf(message: NotificationToRender): string {
  if (message.purpose === "test") {
    return "No alert is firing. Spindle sent this to check that the channel works; nothing needs to be done.";
  }
  const { notice } = message;
  if (subjectCount(notice) === 1) return notice.note;
  // A grouped message lists every subject with its own value.
  const lines = [notice, ...notice.also].map((change) => `- ${subjectText(change)}: ${valueText(notice, change.value)}`);
  if (notice.alsoUnlisted > 0) lines.push(`- and ${notice.alsoUnlisted} more, not listed`);
  const list = `${subjectCount(notice)} subjects changed to ${stateWord(notice)} in the same evaluation:\n${lines.join("\n")}`;
  return notice.note ? `${notice.note}\n\n${list}` : list;
}

/**
 * One key per alert (organisation, rule, server, device), the same for its firing and its
 * resolve: PagerDuty's dedup_key, so a resolve closes the incident the trigger opened, and the
 * e-mail thread id.
 */
export function alertKeyOf(message: NotificationToRender): string {
  if (message.purpose === "test") return `spindle-test-${message.id}`;
  const { notice } = message;
  const digest = createHash("sha256")
    .update(JSON.stringify([notice.orgId, notice.rule.id, notice.subject.serverId, notice.subject.device]))
    .digest("hex");
  return `spindle-${digest.slice(0, 40)}`;
}
