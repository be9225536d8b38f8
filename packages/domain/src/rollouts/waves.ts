// Which servers go in which wave. The canary is chosen by the plan (servers, a tag, or N picked
// across tag groups); the percentage waves take the rest in an order that interleaves the tag
// groups, so every wave holds a bit of every kind of server and the servers not yet changed stay
// a fair control for the wave being judged. The order is a hash of the rollout id and the server
// id: the same rollout always gets the same waves, and no server is always first.
import type { RolloutCanary, RolloutPlan } from "./plan.js";

export interface PlannableServer {
  id: string;
  hostname: string;
  tags: readonly string[];
}

export interface PlannedWave {
  /** 0 is the canary. */
  index: number;
  label: string;
  /** Cumulative share of the affected servers changed once this wave is out; null for the canary. */
  percent: number | null;
  serverIds: string[];
}

export type WavePlan = { ok: true; waves: PlannedWave[] } | { ok: false; message: string };

/**
 * A 53-bit string hash (cyrb53): a stable, well-spread order, not a secret. Pure JavaScript, since
 * this package also runs in the browser (the console's plan preview).
 */
function rank(seed: string, serverId: string): number {
  const text = `${seed}\u0000${serverId}`;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Servers grouped by their tag set (the untagged are a group too), each group in hash order. */
function tagGroups(servers: readonly PlannableServer[], seed: string): PlannableServer[][] {
  const groups = new Map<string, PlannableServer[]>();
  for (const server of servers) {
    const key = [...server.tags].sort().join(",");
    groups.set(key, [...(groups.get(key) ?? []), server]);
  }
  const ordered = [...groups.entries()].map(([key, members]) => ({
    key,
    members: members
      .map((server) => ({ server, rank: rank(seed, server.id) }))
      .sort((a, b) => a.rank - b.rank || (a.server.id < b.server.id ? -1 : 1))
      .map((m) => m.server),
  }));
  // Larger groups first, so a canary of N takes one of each of the N most common kinds of server.
  ordered.sort((a, b) => b.members.length - a.members.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return ordered.map((group) => group.members);
}

/** Round robin over the groups: one of each kind, then the second of each kind, and so on. */
export function interleaveAcrossTags(servers: readonly PlannableServer[], seed: string): PlannableServer[] {
  const groups = tagGroups(servers, seed);
  const order: PlannableServer[] = [];
  for (let i = 0; order.length < servers.length; i++) {
    for (const group of groups) if (i < group.length) order.push(group[i]!);
  }
  return order;
}

function chooseCanary(
  canary: RolloutCanary,
  affected: readonly PlannableServer[],
  seed: string,
): { ok: true; ids: string[] } | { ok: false; message: string } {
  if (canary.kind === "servers") {
    const known = new Set(affected.map((server) => server.id));
    const outside = canary.serverIds.filter((id) => !known.has(id));
    if (outside.length > 0) {
      return {
        ok: false,
        message: `${outside.length} chosen canary server${outside.length === 1 ? " is" : "s are"} not changed by this rollout (its policy stays the same); pick servers the change reaches.`,
      };
    }
    return { ok: true, ids: [...new Set(canary.serverIds)] };
  }
  if (canary.kind === "tag") {
    const ids = interleaveAcrossTags(affected, seed)
      .filter((server) => server.tags.includes(canary.tag))
      .map((server) => server.id);
    if (ids.length === 0)
      return {
        ok: false,
        message: `No server the change reaches carries the tag "${canary.tag}"; tag a few representative servers, or pick the canary another way.`,
      };
    return { ok: true, ids };
  }
  return {
    ok: true,
    ids: interleaveAcrossTags(affected, seed)
      .slice(0, canary.count)
      .map((server) => server.id),
  };
}

/**
 * The waves of a rollout over the servers whose effective policy it changes. Percentages are of
 * all affected servers (canary included) and rounded up, so 10 % of 3 servers is one. A wave the
 * canary already covers would hold no server and is left out; the last wave always takes every
 * server left.
 */
export function planWaves(
  affected: readonly PlannableServer[],
  plan: Pick<RolloutPlan, "canary" | "wavePercents">,
  seed: string,
): WavePlan {
  if (affected.length === 0) return { ok: true, waves: [] };
  const canary = chooseCanary(plan.canary, affected, seed);
  if (!canary.ok) return canary;
  const inCanary = new Set(canary.ids);
  const waves: PlannedWave[] = [{ index: 0, label: "Canary", percent: null, serverIds: canary.ids }];
  const rest = interleaveAcrossTags(
    affected.filter((server) => !inCanary.has(server.id)),
    seed,
  );
  let placed = canary.ids.length;
  let taken = 0;
  for (const percent of plan.wavePercents) {
    const target = percent === 100 ? affected.length : Math.min(affected.length, Math.ceil((percent / 100) * affected.length));
    const count = Math.max(0, target - placed);
    if (count === 0) continue;
    waves.push({
      index: waves.length,
      label: `${percent} %`,
      percent,
      serverIds: rest.slice(taken, taken + count).map((server) => server.id),
    });
    taken += count;
    placed += count;
  }
  return { ok: true, waves };
}
