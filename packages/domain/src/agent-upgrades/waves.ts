// Which servers go in which wave of an agent upgrade: this is the one function the worker and
// the console's preview call (docs/install.md, "Upgrades"). The canary takes servers across the
// tag groups (the most common kinds of server first), the percentage waves take the rest in an
// order that interleaves the groups, so every wave holds a bit of every kind of server. The order
// is a hash of the rollout's seed and the server id: the same rollout always gets the same waves.
import type { AgentUpgradePlan } from "./plan.js";

export interface UpgradeCandidate {
  id: string;
  tags: readonly string[];
}

export interface PlannedUpgradeWave {
  /** 0 is the canary. */
  index: number;
  label: string;
  serverIds: string[];
}

/** A 53-bit string hash (cyrb53): a stable, well-spread order, not a secret. */
function rank(seed: string, id: string): number {
  const text = `${seed}\u0000${id}`;
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

/** Round robin over the tag groups (largest first), each group in hash order. */
export function interleaveByTags(servers: readonly UpgradeCandidate[], seed: string): UpgradeCandidate[] {
  const groups = new Map<string, UpgradeCandidate[]>();
  for (const server of servers) {
    const key = [...server.tags].sort().join(",");
    groups.set(key, [...(groups.get(key) ?? []), server]);
  }
  const ordered = [...groups.entries()]
    .map(([key, members]) => ({
      key,
      members: members
        .map((server) => ({ server, rank: rank(seed, server.id) }))
        .sort((a, b) => a.rank - b.rank || (a.server.id < b.server.id ? -1 : 1))
        .map((m) => m.server),
    }))
    .sort((a, b) => b.members.length - a.members.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const order: UpgradeCandidate[] = [];
  for (let i = 0; order.length < servers.length; i++) {
    for (const group of ordered) if (i < group.members.length) order.push(group.members[i]!);
  }
  return order;
}

/**
 * The waves of an upgrade of `servers` (those the rollout will offer the version to; pinned and
 * skipped servers are left out before). Waves that would be empty on a small fleet are dropped,
 * so every returned wave holds at least one server; an empty fleet has no waves.
 */
export function planUpgradeWaves(
  servers: readonly UpgradeCandidate[],
  plan: Pick<AgentUpgradePlan, "canary" | "wavePercents">,
  seed: string,
): PlannedUpgradeWave[] {
  const order = interleaveByTags(servers, seed);
  const total = order.length;
  if (total === 0) return [];
  const canaryCount = Math.min(plan.canary, total);
  const waves: PlannedUpgradeWave[] = [{ index: 0, label: "canary", serverIds: order.slice(0, canaryCount).map((s) => s.id) }];
  let taken = canaryCount;
  for (const percent of plan.wavePercents) {
    const upTo = Math.max(taken, Math.min(total, Math.ceil((total * percent) / 100)));
    if (upTo === taken) continue;
    waves.push({ index: waves.length, label: `${percent} %`, serverIds: order.slice(taken, upTo).map((s) => s.id) });
    taken = upTo;
  }
  return waves;
}
