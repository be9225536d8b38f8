// The alert engine's description of one alert state change (or of several, grouped): what packages/notify routes, stores
// in the outbox and renders. Every field is bounded so a rendered message always fits the
// smallest receiver limit (Teams' 28 KB) without truncating anything but the note.
import { z } from "zod";

export const severities = ["info", "warning", "critical"] as const;
export type Severity = (typeof severities)[number];

/** An alert's states, as the alert engine names them (@spindle/domain's alertStates). */
export const alertStates = ["ok", "pending", "firing", "no_data"] as const;
/**
 * States whose entry notifies: firing, no_data, and ok when it comes from firing or no_data (a
 * resolve). Entering pending, or ok from pending, notifies no one.
 */
export const notifyingStates = ["firing", "no_data", "ok"] as const;
export type NotifyingState = (typeof notifyingStates)[number];

// Tags as servers carry them (the policy assignment rule in the database).
export const tagSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,62}$/, "a tag is lower-case letters, digits and . _ : -, up to 63 characters");

const isoTime = z.iso.datetime({ offset: true });

/** A subject of an alert notice; serverId null for an organisation-wide rule. */
const subjectSchema = z
  .object({
    serverId: z.uuid().nullable(),
    serverName: z.string().max(253).nullable(),
    device: z.string().max(200).nullable(),
    tags: z.array(tagSchema).max(64),
  })
  .strict();

/**
 * At most this many other subjects are listed in one grouped message (the rest are counted), so
 * a fleet-wide outage still renders within Teams' 28 KB.
 */
export const maxGroupedSubjects = 25;

/** Another subject of the same rule that changed the same way in the same evaluation. */
export const groupedChangeSchema = z
  .object({
    transitionId: z.string().min(1).max(200),
    subject: subjectSchema,
    value: z.number().finite().nullable(),
    startedAt: isoTime.nullable(),
  })
  .strict();
export type GroupedChange = z.infer<typeof groupedChangeSchema>;

export const alertNoticeSchema = z
  .object({
    orgId: z.string().min(1).max(200),
    /** Stable id of this state change (the engine's event id): replaying it enqueues nothing twice. */
    transitionId: z.string().min(1).max(200),
    rule: z.object({ id: z.string().min(1).max(200), name: z.string().trim().min(1).max(200) }).strict(),
    severity: z.enum(severities),
    state: z
      .object({ from: z.enum(alertStates), to: z.enum(notifyingStates) })
      .strict()
      .refine((state) => state.to !== "ok" || state.from === "firing" || state.from === "no_data", {
        message: "a notice for ok is a resolve: it comes from firing or no_data",
      }),
    /** What the alert is about; serverId null for an organisation-wide rule. */
    subject: subjectSchema,
    /** The evaluated value; null when there was no data (state no_data) or on resolve without one. */
    value: z.number().finite().nullable(),
    threshold: z.number().finite().nullable(),
    comparison: z.enum([">", ">=", "<", "<="]).nullable(),
    /** Unit of value and threshold as people read it ("ms", "%", "IOPS"); "" for a plain number. */
    unit: z.string().max(32),
    /** What the value is measured from, e.g. "p99 read latency, eBPF histograms, 5-min window". */
    basis: z.string().max(300),
    /** When the alert's current episode began (null when the engine did not say) and when this change happened. */
    startedAt: isoTime.nullable(),
    at: isoTime,
    note: z.string().max(2000),
    /** Console path of the chart around the event, e.g. /servers/<id>?from=…&to=…; made absolute with the console URL. */
    linkPath: z
      .string()
      .max(2000)
      .regex(/^\/(?!\/)[^\s]*$/, "linkPath is a path inside the console starting with a single /"),
    /** A silenced transition is recorded for history and never sent. */
    silenced: z.boolean(),
    /**
     * Grouping: the other subjects of this rule that changed the same way in the same evaluation
     * and go to the same channel, sent in this one message (30 servers offline at once is one
     * e-mail). Empty for a single change; `alsoUnlisted` counts those beyond maxGroupedSubjects.
     */
    also: z.array(groupedChangeSchema).max(maxGroupedSubjects).default([]),
    alsoUnlisted: z.number().int().min(0).default(0),
  })
  .strict();

export type AlertNotice = z.infer<typeof alertNoticeSchema>;
/** A notice as the engine writes it: `also` and `alsoUnlisted` may be left out (a single change). */
export type AlertNoticeInput = z.input<typeof alertNoticeSchema>;

/** Parses a notice or throws an error naming every bad field (the engine's bug, not the user's). */
export function parseAlertNotice(input: unknown): AlertNotice {
  const result = alertNoticeSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(notice)"}: ${issue.message}`);
    throw new Error(`invalid alert notice: ${problems.join("; ")}`);
  }
  return result.data;
}
