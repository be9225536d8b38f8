import type { AuditEntry } from "../types/audit";

const text = (value: unknown, fallback = "?") => (typeof value === "string" && value !== "" ? value : fallback);
const list = (value: unknown) => (Array.isArray(value) && value.length > 0 ? value.join(", ") : "none");

/**
 * One audit entry as a sentence ("saved version 3 of “Postgres”"), from the action and the
 * details the operation recorded. Unknown actions fall back to their raw name. An entry written
 * by a bulk action on the fleet page says so, with how many servers that action named.
 */
export function describeAuditEntry(entry: Pick<AuditEntry, "action" | "details" | "target">): string {
  const sentence = describeAction(entry);
  const bulk = entry.details.bulk as { servers?: unknown } | undefined;
  return bulk && typeof bulk === "object" && typeof bulk.servers === "number"
    ? `${sentence} (bulk action on ${bulk.servers} servers)`
    : sentence;
}

function describeAction({ action, details, target }: Pick<AuditEntry, "action" | "details" | "target">): string {
  const name = `“${text(details.name)}”`;
  switch (action) {
    case "policy.created":
      return `created policy ${name}`;
    case "policy.version_saved":
      return `saved version ${String(details.version ?? "?")} of ${name}${details.comment ? `: ${text(details.comment)}` : ""}`;
    case "policy.updated":
      return `changed the description of ${name}`;
    case "policy.archived":
      return `archived policy ${name}`;
    case "policy.restored":
      return `restored policy ${name}`;
    case "policy.assigned":
      return `assigned ${name} to ${text(details.target)}${details.replaced ? ` (replacing “${text(details.replaced)}”)` : ""}`;
    case "policy.unassigned":
      return `removed ${name} from ${text(details.target)}`;
    case "server.tags_changed":
      return `changed the tags of ${text(details.hostname)} from ${list(details.before)} to ${list(details.after)}`;
    case "enrollment_token.created":
      return `created an enrolment token${details.label ? ` “${text(details.label)}”` : ""}`;
    case "enrollment_token.revoked":
      return `revoked the enrolment token${details.label ? ` “${text(details.label)}”` : ""}`;
    case "agent_upgrade.started":
      return `started upgrading ${text(details.scope)} to agent ${text(details.version)}${Array.isArray(details.waves) ? ` in ${details.waves.length} wave${details.waves.length === 1 ? "" : "s"}` : ""}${Number(details.skipped) > 0 ? ` (${String(details.skipped)} skipped)` : ""}`;
    case "agent_upgrade.wave_offered":
      return `offered agent ${text(details.version)} to wave ${String(details.wave ?? "?")} (${String(details.servers ?? "?")} servers)`;
    case "agent_upgrade.wave_installed":
      return `saw wave ${String(details.wave ?? "?")} install agent ${text(details.version)}; it soaks for ${String(details.soakMinutes ?? "?")} min`;
    case "agent_upgrade.wave_passed":
      return `saw wave ${String(details.wave ?? "?")} on agent ${text(details.version)} pass its guards${details.note ? ` (${text(details.note)})` : ""}`;
    case "agent_upgrade.wave_held":
      return `held wave ${String(details.wave ?? "?")} on agent ${text(details.version)}: ${text(details.reason)}`;
    case "agent_upgrade.guard_overridden":
      return `let wave ${String(details.wave ?? "?")} of the upgrade to agent ${text(details.version)} go on past its guards${details.reason ? `: ${text(details.reason)}` : ""}`;
    case "agent_upgrade.completed":
      return `completed the upgrade to agent ${text(details.version)}`;
    case "agent_upgrade.paused":
      return `paused the upgrade to agent ${text(details.version)}: ${text(details.reason)}`;
    case "agent_upgrade.paused_by_user":
      return `paused the upgrade to agent ${text(details.version)}`;
    case "agent_upgrade.resumed":
      return `resumed the upgrade to agent ${text(details.version)}${Number(details.retried) > 0 ? `, retrying ${String(details.retried)} server(s)` : ""}`;
    case "agent_upgrade.cancelled":
      return `cancelled the upgrade to agent ${text(details.version)}`;
    case "agent_version.pinned":
      return `pinned ${text(details.hostname)} to agent ${text(details.version)}${details.reason ? `: ${text(details.reason)}` : ""}`;
    case "agent_version.unpinned":
      return `removed the pin of ${text(details.hostname)} to agent ${text(details.version)}`;
    case "proof_run.requested":
    case "bench_run.requested": // entries written before migration 20261128220100_proof_runs
      return `requested a ${text(details.profile)} proof run on ${text(details.hostname)}`;
    case "proof_run.cancelled":
    case "bench_run.cancelled":
      return `cancelled the proof run on ${text(details.hostname)} (it was ${text(details.was)})`;
    case "server.revoked":
      return `revoked the agent credential of ${text(details.hostname)}`;
    case "server.reenrolment_allowed":
      return `allowed ${text(details.hostname)} to be enrolled again until ${text(details.until)}`;
    case "server.removed":
      return `removed server ${text(details.hostname)}`;
    case "member.added":
      return `added ${text(details.email)} as ${text(details.role)}${details.via ? ` (${text(details.via)})` : ""}`;
    case "member.role_changed":
      return `changed the role of ${text(details.email)} from ${text(details.from)} to ${text(details.role)}`;
    case "member.removed":
      return `removed ${text(details.email)} (${text(details.role)})`;
    case "invitation.created":
      return `invited ${text(details.email)} as ${text(details.role)}`;
    case "invitation.cancelled":
      return `cancelled the invitation of ${text(details.email)}`;
    case "invitation.accepted":
      return `${text(details.email)} accepted the invitation as ${text(details.role)}`;
    case "alert_rule.created":
      return `created alert rule ${name}`;
    case "alert_rule.updated":
      return `edited alert rule ${name}${Array.isArray(details.changed) && details.changed.length > 0 ? ` (${list(details.changed)})` : ""}`;
    case "alert_rule.enabled":
      return `turned on alert rule ${name}`;
    case "alert_rule.disabled":
      return `turned off alert rule ${name}`;
    case "alert_rule.deleted":
      return `deleted alert rule ${name}`;
    case "alert_silence.created":
      return `silenced ${details.rule ? `“${text(details.rule)}”` : "all rules"} (${text(details.scope)}) until ${text(details.endsAt)}: ${text(details.comment)}`;
    case "alert_silence.cancelled":
      return `cancelled the silence “${text(details.comment)}”`;
    case "alert.acknowledged":
      return `acknowledged “${text(details.rule)}”${details.component ? ` on ${text(details.component)}` : ""}${details.note ? `: ${text(details.note)}` : ""}`;
    case "notification_channel.created":
      return `created the ${text(details.kind)} notification channel ${name}`;
    case "notification_channel.updated":
      return `changed ${list(details.changed)} of notification channel ${name}`;
    case "notification_channel.deleted":
      return `deleted notification channel ${name}`;
    case "notification_channel.tested":
      return `sent a test through notification channel ${name}`;
    case "notification_route.created":
      return `routed ${list(details.severities)} alerts (${text(details.scope)}) to ${name}`;
    case "notification_route.deleted":
      return `removed a route (${list(details.severities)}, ${text(details.scope)}) from ${name}`;
    case "recommendation.applied":
      return `applied the recommendation “${text(details.title)}” on ${text(details.server)}: ${text(details.change)} (version ${text(details.version)})`;
    case "recommendation.dismissed":
      return `dismissed the recommendation “${text(details.title)}”`;
    case "recommendation.snoozed":
      return `snoozed the recommendation “${text(details.title)}” until ${text(details.until)}`;
    case "recommendation.reopened":
      return `reopened the recommendation “${text(details.title)}”`;
    case "policy.applied_now":
      return `applied “${text(details.title)}” at once, without a rollout, to ${list(details.slots)}`;
    case "rollout.created":
      return `started the rollout “${text(details.title)}” (${String(details.servers ?? "?")} servers in ${String(details.waves ?? "?")} waves)`;
    case "rollout.paused":
      return `paused the rollout “${text(details.title)}”`;
    case "rollout.resumed":
      return `resumed the rollout “${text(details.title)}”`;
    case "rollout.rolled_back":
      return details.automatic
        ? `rolled back the rollout “${text(details.title)}” automatically: ${text(details.reason)}`
        : `rolled back the rollout “${text(details.title)}” (${String(details.servers ?? "?")} servers)`;
    case "rollout.aborted":
      return `aborted the rollout “${text(details.title)}”${Array.isArray(details.restored) && details.restored.length > 0 ? `: ${list(details.restored)}` : ""}`;
    case "rollout.completed":
      return `completed the rollout “${text(details.title)}” (${String(details.servers ?? "?")} servers)`;
    case "rollout.guard_overridden":
      return `overrode the guards of wave ${String(details.wave ?? "?")} of “${text(details.title)}”: ${text(details.reason)}`;
    case "rollout.settings_changed":
      return details.rolloutsRequired
        ? "made organisation- and tag-wide changes go out as rollouts"
        : "let organisation- and tag-wide changes go out at once by default";

    case "auth.signed_in":
      return `${text(details.email)} signed in (${text(details.method, "unknown method")}) from ${text(details.address, "an unknown address")}`;
    case "auth.sign_in_failed":
      return `a sign-in as ${text(details.email)} failed: ${text(details.reason)}${details.address ? ` (from ${text(details.address)})` : ""}`;
    case "auth.password_reset":
      return `${text(details.email)} reset their password by e-mail`;
    case "auth.password_changed":
      return `${text(details.email)} changed their password`;
    case "auth.mfa_enabled":
      return `${text(details.email)} turned on two-factor authentication`;
    case "auth.mfa_disabled":
      return `${text(details.email)} turned off two-factor authentication`;
    case "auth.sso_refused":
      return `single sign-on refused ${text(details.email)}: ${text(details.reason)}`;
    case "member.signed_out":
      return `signed ${text(details.email)} out of every session`;
    case "api_token.created":
      return `created the ${text(details.role)} API token “${text(details.name)}”`;
    case "api_token.revoked":
      return `revoked the API token “${text(details.name)}”`;
    case "sso.configured":
      return `set up single sign-on with ${text(details.issuer)} for @${text(details.domain)}${details.enforced ? ", required" : ""}`;
    case "sso.updated":
      return `changed single sign-on (${text(details.issuer)}, @${text(details.domain)}, new members as ${text(details.defaultRole)}${details.enforced ? ", required" : ", optional"})`;
    case "sso.removed":
      return `removed single sign-on with ${text(details.issuer)}`;
    case "organization.mfa_required":
      return "required two-factor authentication for password sign-ins";
    case "organization.mfa_not_required":
      return "made two-factor authentication optional";
    default:
      return target ? `${action} (${target})` : action;
  }
}

/** Where an entry's subject lives in the console, when it has a page. */
export function auditEntryLink({ action, target }: Pick<AuditEntry, "action" | "target">): string | null {
  if (action === "policy.applied_now") return target ? `/policies/${target}` : null;
  if (action === "rollout.settings_changed") return "/settings/rollouts";
  if (action.startsWith("rollout.")) return `/rollouts/${target}`;
  if (action.startsWith("policy.")) return `/policies/${target}`;
  if (action.startsWith("server.")) return `/servers/${target}`;
  if (action.startsWith("enrollment_token.")) return "/servers/add";
  if (action.startsWith("proof_run.") || action.startsWith("bench_run.")) return `/proof-runs/${target}`;
  if (action === "alert_rule.deleted") return "/alerts/rules";
  if (action.startsWith("alert_rule.")) return `/alerts/rules/${target}`;
  if (action.startsWith("alert_silence.")) return "/alerts/silences";
  if (action === "alert.acknowledged") return "/alerts";
  if (action.startsWith("notification_")) return "/alerts/channels";
  if (action.startsWith("recommendation.")) return "/recommendations";
  if (action.startsWith("api_token.")) return "/settings/api-tokens";
  if (action.startsWith("sso.") || action.startsWith("organization.mfa")) return "/settings/security";
  return null;
}
