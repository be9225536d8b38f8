import type { Evidence } from "@spindle/domain";

/** Section of the server page that draws each evidence view. */
const anchors: Record<Evidence["chart"]["view"], string> = {
  "miss-ratio-curve": "miss-ratio-curves",
  "read-cache": "gains",
  "page-cache-files": "cache-top-files",
  fragmentation: "fragmentation",
  "write-optimisation": "gains",
  capabilities: "capabilities",
};

/**
 * The server page around the evidence's window (?from&to, the shape notifications link with: the
 * page picks the chart range that holds it) at the section that draws it.
 */
export function evidenceHref(evidence: Evidence): string {
  const query = new URLSearchParams({ from: evidence.window.from, to: evidence.window.to });
  return `/servers/${encodeURIComponent(evidence.chart.serverId)}?${query.toString()}#${anchors[evidence.chart.view]}`;
}
