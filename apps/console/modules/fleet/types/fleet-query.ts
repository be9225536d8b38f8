// The fleet page's question, as the URL and GET /api/servers carry it: search, filters, sort,
// page, grouping. Every value is checked here, so an unknown filter, a misspelt status or a
// page size the page does not offer is a 400 that names the parameter and what it accepts,
// never an empty list that looks like an answer.
import { z } from "zod";
import { capabilityCatalogue } from "@spindle/domain";
import { tagSchema } from "@/modules/policies/types/policy";

export const fleetStatuses = ["online", "offline", "waiting"] as const;
/** The server page's policy states (modules/policies/lib/policy-status.ts), computed in SQL. */
export const fleetPolicyStates = ["applied", "pending", "failed", "invalid"] as const;
/** `firing`: any firing alert; a severity: a firing alert of that severity; `none`: nothing firing. */
export type FleetPolicyState = (typeof fleetPolicyStates)[number];
export type FleetStatus = (typeof fleetStatuses)[number];
export type FleetSortKey = (typeof fleetSortKeys)[number];
export const fleetAlertFilters = ["firing", "critical", "warning", "info", "none"] as const;
export const fleetSortKeys = ["hostname", "status", "os", "kernel", "agentVersion", "lastSeen", "firing", "policy"] as const;
export const fleetPageSizes = [25, 50, 100, 200] as const;
export const capabilityNames = capabilityCatalogue.map((capability) => capability.name) as [string, ...string[]];

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: () => `${what} is one of: ${values.join(", ")}` });

/** A free-text facet value (an OS name, a kernel, an agent version) exactly as the fleet lists it. */
const facetValue = (what: string) =>
  z.string().trim().min(1, `${what} is empty: leave it out to show every ${what}`).max(255, `${what} is at most 255 characters`);

const filterShape = {
  q: z.string().trim().max(200, "the search is at most 200 characters").optional(),
  status: oneOf(fleetStatuses, "status").optional(),
  tag: tagSchema.optional(),
  untagged: z.enum(["true"], { error: () => "untagged is true or left out" }).optional(),
  os: facetValue("os").optional(),
  kernel: facetValue("kernel").optional(),
  agent: facetValue("agent").optional(),
  missing: oneOf(capabilityNames, "missing (a capability)").optional(),
  alert: oneOf(fleetAlertFilters, "alert").optional(),
  policy: oneOf(fleetPolicyStates, "policy").optional(),
};

const tagOrUntagged = (filter: { tag?: string; untagged?: "true" }, context: z.RefinementCtx) => {
  if (filter.tag && filter.untagged)
    context.addIssue({ code: "custom", path: ["untagged"], message: "ask for a tag or for untagged servers, not both" });
};

/** A parameter the fleet does not know is named, with the ones it does. */
const unknownKeys = (allowed: readonly string[]) => ({
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown parameter ${issue.keys?.join(", ")}: the fleet takes ${allowed.join(", ")}` : undefined,
});

/** Which servers: the filters alone, shared by the list, the groups and the bulk actions. */
export const fleetFilterSchema = z.strictObject(filterShape, unknownKeys(Object.keys(filterShape))).superRefine(tagOrUntagged);
export type FleetFilter = z.infer<typeof fleetFilterSchema>;
export const fleetFilterKeys = ["q", "status", "tag", "untagged", "os", "kernel", "agent", "missing", "alert", "policy"] as const;

const positiveInt = (what: string, max: number) =>
  z.coerce
    .number({ error: () => `${what} is a whole number` })
    .int(`${what} is a whole number`)
    .min(1, `${what} starts at 1`)
    .max(max, `${what} is at most ${max}`);

/** The whole query string of the list: filters plus sort, page and grouping. */
const queryShape = {
  ...filterShape,
  sort: oneOf(fleetSortKeys, "sort").default("hostname"),
  dir: oneOf(["asc", "desc"] as const, "dir").default("asc"),
  page: positiveInt("page", 100_000).default(1),
  pageSize: z.coerce
    .number({ error: () => `pageSize is one of ${fleetPageSizes.join(", ")}` })
    .refine(
      (size): size is (typeof fleetPageSizes)[number] => (fleetPageSizes as readonly number[]).includes(size),
      `pageSize is one of ${fleetPageSizes.join(", ")}`,
    )
    .default(50),
  group: oneOf(["tag"] as const, "group").optional(),
};
export const fleetQuerySchema = z.strictObject(queryShape, unknownKeys(Object.keys(queryShape))).superRefine(tagOrUntagged);
export type FleetQuery = z.infer<typeof fleetQuerySchema>;
export type FleetQueryInput = z.input<typeof fleetQuerySchema>;

/** The query string of a fleet query, leaving out defaults so shared links stay short. */
export function fleetQueryString(query: Partial<FleetQuery>): string {
  const params = new URLSearchParams();
  for (const key of fleetFilterKeys) {
    const value = query[key];
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  if (query.sort && query.sort !== "hostname") params.set("sort", query.sort);
  if (query.dir && query.dir !== "asc") params.set("dir", query.dir);
  if (query.page && query.page !== 1) params.set("page", String(query.page));
  if (query.pageSize && query.pageSize !== 50) params.set("pageSize", String(query.pageSize));
  if (query.group) params.set("group", query.group);
  return params.toString();
}

/** Just the filters of a query (what a bulk action's "every matching server" means). */
export function filterOf(query: Partial<FleetQuery>): FleetFilter {
  const filter: Record<string, unknown> = {};
  for (const key of fleetFilterKeys) if (query[key] !== undefined && query[key] !== "") filter[key] = query[key];
  return filter as FleetFilter;
}
