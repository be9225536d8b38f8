import { z } from "zod";

export const gainsPresetSchema = z.enum(["1h", "24h", "7d", "30d"]);
export type GainsPreset = z.infer<typeof gainsPresetSchema>;

/** Longest custom range: the 1-hour aggregates keep two years, more would draw thousands of points. */
export const maxCustomRangeDays = 400;

/**
 * The query string of every gains route: a preset range, or `custom` with ISO `from` and `to`.
 * A bad custom range is a 400 that says what to send.
 */
export const gainsRangeQuerySchema = z
  .object({
    range: z.enum(["1h", "24h", "7d", "30d", "custom"]).default("24h"),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((query, context) => {
    if (query.range !== "custom") {
      if (query.from || query.to) context.addIssue({ code: "custom", path: ["range"], message: "from and to go with range=custom only" });
      return;
    }
    if (!query.from || !query.to) {
      context.addIssue({
        code: "custom",
        path: [query.from ? "to" : "from"],
        message: "range=custom needs both from and to (ISO 8601 with a time zone)",
      });
      return;
    }
    const span = Date.parse(query.to) - Date.parse(query.from);
    if (span <= 0) context.addIssue({ code: "custom", path: ["to"], message: "to must be after from" });
    if (span > maxCustomRangeDays * 86_400_000)
      context.addIssue({ code: "custom", path: ["to"], message: `a custom range spans at most ${maxCustomRangeDays} days` });
  });
export type GainsRangeQuery = z.infer<typeof gainsRangeQuerySchema>;

/** The CSV export: the ledger of the fleet or of one server, or one server's read series. */
export const gainsExportQuerySchema = z
  .object({
    what: z.enum(["ledger", "series"]),
    serverId: z.string().optional(),
    range: z.enum(["1h", "24h", "7d", "30d", "custom"]).default("24h"),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((query, context) => {
    if (query.what === "series" && !query.serverId)
      context.addIssue({ code: "custom", path: ["serverId"], message: "the read series is per server: add serverId" });
    const range = gainsRangeQuerySchema.safeParse({ range: query.range, from: query.from, to: query.to });
    if (!range.success)
      for (const issue of range.error.issues) context.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });
export type GainsExportQuery = z.infer<typeof gainsExportQuerySchema>;

/** What the page's range picker holds. */
export type GainsSelection = { range: GainsPreset } | { range: "custom"; from: string; to: string };

/** The query string for a selection, e.g. "range=24h" or "range=custom&from=…&to=…". */
export function gainsQueryString(selection: GainsSelection): string {
  const params = new URLSearchParams({ range: selection.range });
  if (selection.range === "custom") {
    params.set("from", selection.from);
    params.set("to", selection.to);
  }
  return params.toString();
}
