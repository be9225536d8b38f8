// The chart window of a server page as its URL carries it, so a zoom or a custom range can be
// shared: `?range=24h` (live), `?range=24h&to=…&at=…` (around an alert, from its link), or
// `?from=…&to=…` (a custom window: a drag-zoom or the custom range form). Other parameters of
// the page are left as they are.
import { metricsRangeSchema, type MetricsRange } from "../types/metrics";
import { chartWindowQuerySchema, MIN_WINDOW_MS } from "./chart-window";

export type WindowSelection = { range: MetricsRange; to: string | null; at: string | null } | { range: "custom"; from: string; to: string };

const LIVE: WindowSelection = { range: "1h", to: null, at: null };
const keys = ["range", "from", "to", "at"] as const;

/**
 * A window narrower than the charts draw (a link to a 15-second evidence window, a very small
 * drag) widened around its middle to the narrowest one they do.
 */
function atLeastMinimum(fromMs: number, toMs: number): [number, number] {
  if (!(toMs > fromMs) || toMs - fromMs >= MIN_WINDOW_MS) return [fromMs, toMs];
  const middle = (fromMs + toMs) / 2;
  return [Math.floor((middle - MIN_WINDOW_MS / 2) / 1000) * 1000, Math.ceil((middle + MIN_WINDOW_MS / 2) / 1000) * 1000];
}

/** The selection a URL asks for; a bad one falls back to the live hour and says what was wrong. */
export function selectionFromParams(params: URLSearchParams): { selection: WindowSelection; problems: string[] } {
  const raw: Record<string, string> = {};
  for (const key of ["range", "from", "to"] as const) {
    const value = params.get(key);
    if (value !== null && value !== "") raw[key] = value;
  }
  if (raw.from && raw.to && !Number.isNaN(Date.parse(raw.from)) && !Number.isNaN(Date.parse(raw.to))) {
    const [from, to] = atLeastMinimum(Date.parse(raw.from), Date.parse(raw.to));
    if (from !== Date.parse(raw.from)) [raw.from, raw.to] = [new Date(from).toISOString(), new Date(to).toISOString()];
  }
  const parsed = chartWindowQuerySchema.safeParse(raw);
  if (!parsed.success)
    return { selection: LIVE, problems: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) };
  const query = parsed.data;
  if (query.from !== undefined) {
    return {
      selection: { range: "custom", from: new Date(query.from).toISOString(), to: new Date(query.to ?? Date.now()).toISOString() },
      problems: [],
    };
  }
  const range = metricsRangeSchema.safeParse(query.range ?? "1h");
  const at = params.get("at");
  return { selection: { range: range.success ? range.data : "1h", to: query.to ?? null, at: query.to && at ? at : null }, problems: [] };
}

/** The page's parameters with the chart window replaced by `selection` (the live hour leaves none). */
export function withSelection(params: URLSearchParams, selection: WindowSelection): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const key of keys) next.delete(key);
  if (selection.range === "custom") {
    next.set("from", selection.from);
    next.set("to", selection.to);
  } else {
    if (selection.range !== "1h" || selection.to) next.set("range", selection.range);
    if (selection.to) next.set("to", selection.to);
    if (selection.at) next.set("at", selection.at);
  }
  return next;
}

/** The query string the chart APIs take for a selection. */
export function selectionQuery(selection: WindowSelection): string {
  const params = new URLSearchParams();
  if (selection.range === "custom") {
    params.set("from", selection.from);
    params.set("to", selection.to);
  } else {
    params.set("range", selection.range);
    if (selection.to) params.set("to", selection.to);
  }
  return params.toString();
}

/** Whether an answer (its range and start) is the one asked for, so an older answer is never drawn in a newer window. */
export function answers(data: { range: string; from: string } | undefined, selection: WindowSelection): boolean {
  if (!data || data.range !== selection.range) return false;
  return selection.range !== "custom" || Date.parse(data.from) === Date.parse(selection.from);
}

/** The custom window a zoom selected (unix seconds), at whole seconds and at least the narrowest the charts draw. */
export function zoomSelection(fromSeconds: number, toSeconds: number): WindowSelection {
  const [from, to] = atLeastMinimum(fromSeconds * 1000, toSeconds * 1000);
  return { range: "custom", from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
