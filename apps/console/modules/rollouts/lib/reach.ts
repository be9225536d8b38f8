// What a change reaches, said before it is made ("tag db: 12 servers"), and whether the
// organisation's setting sends it through a rollout by default. Pure, for the forms.

export interface ReachTarget {
  scope: "organization" | "tag" | "server";
  tag: string | null;
  serverId: string | null;
}

export interface ReachServer {
  id: string;
  hostname: string;
  tags: string[];
}

export interface Reach {
  /** "the organisation default (40 servers)" */
  description: string;
  servers: ReachServer[];
  /** Organisation- or tag-wide, or several servers: a rollout by default when the setting is on. */
  wide: boolean;
}

const plural = (n: number) => `${n} server${n === 1 ? "" : "s"}`;

export function reachOf(targets: readonly ReachTarget[], servers: readonly ReachServer[]): Reach {
  const reached = new Map<string, ReachServer>();
  const parts: string[] = [];
  for (const target of targets) {
    const matched = servers.filter(
      (s) => target.scope === "organization" || (target.scope === "tag" ? s.tags.includes(target.tag ?? "") : s.id === target.serverId),
    );
    for (const server of matched) reached.set(server.id, server);
    parts.push(
      target.scope === "organization"
        ? `the organisation default (${plural(matched.length)})`
        : target.scope === "tag"
          ? `tag ${target.tag} (${plural(matched.length)})`
          : `server ${matched[0]?.hostname ?? "?"}`,
    );
  }
  const wide = targets.some((t) => t.scope !== "server") || targets.length > 1;
  return { description: parts.length > 0 ? parts.join(", ") : "no server yet", servers: [...reached.values()], wide };
}

export function defaultDeliveryMode(reach: Reach, rolloutsRequired: boolean): "rollout" | "now" {
  return reach.wide && rolloutsRequired ? "rollout" : "now";
}
