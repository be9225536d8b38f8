// The server page's Gains range in its URL (`gains`, `gainsFrom`, `gainsTo`), beside the charts'
// own window, so a zoomed reads chart is shared like any other chart.
import { gainsRangeQuerySchema, type GainsSelection } from "../types/range";

const keys = { range: "gains", from: "gainsFrom", to: "gainsTo" } as const;

/** The selection the URL holds; the server page's default (the last hour) when it holds none or a bad one. */
export function gainsSelectionFromParams(params: URLSearchParams, fallback: GainsSelection = { range: "1h" }): GainsSelection {
  const raw = Object.fromEntries(Object.entries(keys).flatMap(([name, key]) => (params.get(key) ? [[name, params.get(key)!]] : [])));
  if (!raw.range) return fallback;
  const parsed = gainsRangeQuerySchema.safeParse(raw);
  if (!parsed.success) return fallback;
  return parsed.data.range === "custom" ? { range: "custom", from: parsed.data.from!, to: parsed.data.to! } : { range: parsed.data.range };
}

/** The page's parameters with the Gains range replaced. */
export function withGainsSelection(params: URLSearchParams, selection: GainsSelection): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const key of Object.values(keys)) next.delete(key);
  next.set(keys.range, selection.range);
  if (selection.range === "custom") {
    next.set(keys.from, selection.from);
    next.set(keys.to, selection.to);
  }
  return next;
}
