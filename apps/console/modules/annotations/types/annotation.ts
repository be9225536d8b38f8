import { z } from "zod";
import { chartWindowQuerySchema } from "@/modules/metrics/lib/chart-window";

/** How a mark looks: one colour per family of event, so a chart reads at a glance. */
export type AnnotationTone = "policy" | "failure" | "alert" | "resolved" | "proof" | "agent";

/**
 * Something that happened to a server, marked on every time chart of it: a moment (`endAt`
 * null) or a span (a proof run). `title` is the one line on hover, `detail` the rest.
 */
export interface Annotation {
  /** Unique within one answer: the source and its row. */
  id: string;
  serverId: string;
  hostname: string;
  /** `<subject>.<verb>`: policy.applied, alert.firing, proof_run.ran, agent.restarted, … */
  kind: string;
  tone: AnnotationTone;
  at: string;
  endAt: string | null;
  title: string;
  detail: string;
  /** Where to read more (the policy, the alerts, the proof run's report). */
  href: string | null;
}

export interface Annotations {
  from: string;
  to: string;
  annotations: Annotation[];
  /** True when more happened in the window than one answer carries (the newest are kept). */
  truncated: boolean;
}

/** The most marks one answer carries: beyond that a chart is more marks than plot. */
export const MAX_ANNOTATIONS = 500;

/** GET /api/annotations: 1 to 4 servers (a server page, or the comparison) and a chart window. */
export const annotationsQuerySchema = z
  .object({
    servers: z
      .string({ error: () => "servers is a comma-separated list of 1 to 4 server ids" })
      .transform((value) => [
        ...new Set(
          value
            .split(",")
            .map((id) => id.trim())
            .filter(Boolean),
        ),
      ])
      .refine((ids) => ids.length >= 1 && ids.length <= 4, "servers is a comma-separated list of 1 to 4 server ids"),
  })
  .and(chartWindowQuerySchema);
