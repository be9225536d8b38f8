// The kinds of server_events (written by the database's triggers, migration
// 20261128170000_server_events) and how a chart names them. A kind not listed here (one a newer
// writer adds) is still marked, under its own name: adding a kind never needs the charts to change.
import type { AnnotationTone } from "../types/annotation";

type Details = Record<string, unknown>;
type Layer = { scope?: string; tag?: string | null; policyName?: string; version?: number; policyId?: string };

const text = (value: unknown) => (typeof value === "string" ? value : "");
const shortHash = (value: unknown) => (typeof value === "string" && value.length >= 12 ? value.slice(0, 12) : "unknown");

function layers(details: Details): string {
  const list = Array.isArray(details.layers) ? (details.layers as Layer[]) : [];
  if (list.length === 0) return "";
  return list
    .map((layer) => {
      const where = layer.scope === "tag" ? `tag ${layer.tag}` : layer.scope === "server" ? "this server" : "organisation default";
      return `“${layer.policyName ?? "?"}” v${layer.version ?? "?"} (${where})`;
    })
    .join(", ");
}

function policyHref(details: Details): string | null {
  const list = Array.isArray(details.layers) ? (details.layers as Layer[]) : [];
  const last = list.at(-1);
  return last?.policyId ? `/policies/${last.policyId}` : null;
}

interface KindLook {
  label: string;
  tone: AnnotationTone;
  describe: (details: Details) => string;
  href?: (details: Details) => string | null;
}

export const eventKinds: Record<string, KindLook> = {
  "policy.applied": {
    label: "Policy applied",
    tone: "policy",
    describe: (d) => `${layers(d) || "The schema's defaults"} in force; policy ${shortHash(d.hash)} applied by the agent.`,
    href: policyHref,
  },
  "policy.failed": {
    label: "Policy refused",
    tone: "failure",
    describe: (d) =>
      `The agent refused policy ${shortHash(d.hash)}${layers(d) ? ` (${layers(d)})` : ""}: ${text(d.message) || "no reason given"}. It kept the policy it ran.`,
    href: policyHref,
  },
  // Written by staged rollouts (issue 23) when a wave is rolled back.
  "policy.rolled_back": {
    label: "Policy rolled back",
    tone: "failure",
    describe: (d) =>
      `${text(d.title) ? `The rollout “${text(d.title)}” rolled` : "Rolled"} this server back to policy ${shortHash(d.hash)}${text(d.reason) ? `: ${text(d.reason)}` : ""}.`,
    href: (d) => (text(d.rolloutId) ? `/rollouts/${text(d.rolloutId)}` : policyHref(d)),
  },
  "agent.started": {
    label: "Agent started",
    tone: "agent",
    describe: (d) => `The agent${text(d.agentVersion) ? ` ${text(d.agentVersion)}` : ""} started for the first time since its enrolment.`,
  },
  "agent.restarted": {
    label: "Agent restarted",
    tone: "agent",
    describe: (d) =>
      `The agent${text(d.agentVersion) ? ` ${text(d.agentVersion)}` : ""} restarted (previous start ${text(d.previousStartedAt) || "unknown"}).`,
  },
  "agent.upgraded": {
    label: "Agent version changed",
    tone: "agent",
    describe: (d) => `The agent went from ${text(d.from) || "?"} to ${text(d.to) || "?"}.`,
  },
};

/** The look of a kind, or a plain one named after the kind itself. */
export function lookOf(kind: string): KindLook {
  return (
    eventKinds[kind] ?? {
      label: kind.replace(/[._]/g, " ").replace(/^\w/, (c) => c.toUpperCase()),
      tone: "agent",
      describe: (d) => (Object.keys(d).length ? JSON.stringify(d) : ""),
    }
  );
}
