// Which channels a notice goes to: every enabled channel with at least one route whose
// severities include the notice's and whose scope covers its subject. Pure, so the outbox and
// any preview in the console agree.
import { z } from "zod";
import { severities, tagSchema, type AlertNotice } from "./notice.js";

export const routeScopes = ["organization", "tag", "server"] as const;

export const routeSchema = z
  .object({
    channelId: z.uuid(),
    severities: z.array(z.enum(severities)).min(1).max(severities.length),
    scope: z.enum(routeScopes),
    tag: tagSchema.nullable(),
    serverId: z.uuid().nullable(),
    notifyResolved: z.boolean(),
  })
  .strict()
  .refine((route) => (route.scope === "tag") === (route.tag !== null), { message: "a tag route names its tag, and only a tag route does" })
  .refine((route) => (route.scope === "server") === (route.serverId !== null), {
    message: "a server route names its server, and only a server route does",
  });
export type Route = z.infer<typeof routeSchema>;

export function routeMatches(route: Route, notice: AlertNotice): boolean {
  if (!route.severities.includes(notice.severity)) return false;
  if (notice.state.to === "ok" && !route.notifyResolved) return false;
  switch (route.scope) {
    case "organization":
      return true;
    case "tag":
      return route.tag !== null && notice.subject.tags.includes(route.tag);
    case "server":
      return route.serverId !== null && route.serverId === notice.subject.serverId;
  }
}

/** Channel ids, each once, in the order their first matching route appears. */
export function channelsFor(routes: readonly Route[], notice: AlertNotice): string[] {
  const channels = new Set<string>();
  for (const route of routes) if (routeMatches(route, notice)) channels.add(route.channelId);
  return [...channels];
}
