import { z } from "zod";

/** `?end=` picks a window by its end (ISO); without it the newest window is shown. */
export const cacheCurvesQuerySchema = z.object({ end: z.iso.datetime({ offset: true }).optional() });
export type CacheCurvesQuery = z.infer<typeof cacheCurvesQuerySchema>;

/** One miss-ratio curve of one window (cache_mrc row), as docs/metrics.md defines it. */
export interface CacheCurve {
  curve: "page_cache" | "read_cache" | "block";
  /** The read-cache scope (include pattern) or the disk; "" for the page cache. */
  scope: string;
  sampleRate: number;
  sampledAccesses: number;
  windowSeconds: number;
  sizesBytes: number[];
  hitRatios: number[];
}

/** A figure marked on the curve, with what it was measured from; null when not measured. */
export interface CurveMarker {
  bytes: number;
  basis: string;
}

export interface CacheCurves {
  /** The windows stored for this server, newest first (the picker's choices). */
  windows: { end: string; windowSeconds: number }[];
  /** The window shown; null when the server has sent no curve. */
  end: string | null;
  curves: CacheCurve[];
  /** The read cache's budget at the window's end (spindle.read_cache.budget). */
  readCacheBudget: CurveMarker | null;
  /** What the host could spare: the 5th percentile of MemAvailable over the window. */
  spareMemory: CurveMarker | null;
}
