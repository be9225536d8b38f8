// A server's layers and their merge: which assignments apply to a server, in which order, and
// what they add up to. The console (to show it) and the worker (to deliver it) both use this, so
// what a user sees is what the agent gets. docs/policy.md, "Inheritance".
import { mergePolicies } from "./merge.js";
import { parsePolicy, type PolicyResult } from "./parse.js";
import type { PolicyDocument } from "./schema.js";

export type AssignmentScope = "organization" | "tag" | "server";

/** Where an assigned policy applies: the organisation default, a tag, or one server. */
export interface AssignmentTarget {
  scope: AssignmentScope;
  tag: string | null;
  serverId: string | null;
}

const scopeRank: Record<AssignmentScope, number> = { organization: 0, tag: 1, server: 2 };

/** Tags compare by code point (UTF-16 units; tags are ASCII), the same in every language. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The assignments that apply to a server, lowest precedence first: the organisation default,
 * the policies of its tags in tag-name order, then its own.
 */
export function layersForServer<T extends AssignmentTarget>(
  server: { id: string; tags: readonly string[] },
  assignments: readonly T[],
): T[] {
  const tags = new Set(server.tags);
  return assignments
    .filter(
      (a) =>
        a.scope === "organization" ||
        (a.scope === "tag" && a.tag !== null && tags.has(a.tag)) ||
        (a.scope === "server" && a.serverId === server.id),
    )
    .sort((a, b) => scopeRank[a.scope] - scopeRank[b.scope] || byCodePoint(a.tag ?? "", b.tag ?? ""));
}

/** Layers merged (lowest precedence first) and validated; no layers at all gives the defaults. */
export function mergeLayers(documents: readonly PolicyDocument[]): { merged: PolicyDocument; result: PolicyResult } {
  const merged = documents.length === 0 ? { schemaVersion: 1 as const } : mergePolicies(documents[0]!, ...documents.slice(1));
  return { merged, result: parsePolicy(merged) };
}

/** An assignment slot a running rollout holds at the layer it had before (null: it had none). */
export interface HeldSlot<T extends AssignmentTarget> {
  target: AssignmentTarget;
  previous: T | null;
}

function sameSlot(a: AssignmentTarget, b: AssignmentTarget): boolean {
  return a.scope === b.scope && (a.tag ?? null) === (b.tag ?? null) && (a.serverId ?? null) === (b.serverId ?? null);
}

/**
 * What a server merges while rollouts have not released it (docs/policy.md, "Rollouts"): at each
 * slot a rollout changed, the layer the slot had before instead of the current one (or no layer,
 * if it had none). The declared assignments stay the change's target; only servers still held
 * see the previous state. Pass the result to layersForServer as usual.
 */
export function assignmentsDuringRollouts<T extends AssignmentTarget>(assignments: readonly T[], held: readonly HeldSlot<T>[]): T[] {
  if (held.length === 0) return [...assignments];
  const kept = assignments.filter((assignment) => !held.some((slot) => sameSlot(slot.target, assignment)));
  // One slot is held by one rollout at a time (the console refuses a second); should two ever
  // hold it, the first given (the older rollout) decides, so the result never has two layers in one slot.
  const seen: AssignmentTarget[] = [];
  const previous: T[] = [];
  for (const slot of held) {
    if (seen.some((target) => sameSlot(target, slot.target))) continue;
    seen.push(slot.target);
    if (slot.previous) previous.push(slot.previous);
  }
  return [...kept, ...previous];
}
