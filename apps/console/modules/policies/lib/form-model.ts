// The policy form edits the layer document in place: each field reads and writes one path, and
// leaving a field unset removes it so the value is inherited. Pure, so the browser and the tests
// share it.
import type { Problem } from "@spindle/policy";

export type Segments = readonly string[];
export type PolicyDraft = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function getAt(document: unknown, segments: Segments): unknown {
  let current = document;
  for (const segment of segments) {
    if (!isPlainObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Whether this layer sets the field itself (rather than inheriting it). */
export function isSetAt(document: unknown, segments: Segments): boolean {
  return getAt(document, segments) !== undefined;
}

/**
 * A copy with `value` at `segments`; `undefined` removes the field, and a section left empty by
 * that goes too, so the JSON view shows only what this layer really sets.
 */
export function setAt(document: PolicyDraft, segments: Segments, value: unknown): PolicyDraft {
  const [head, ...rest] = segments;
  if (head === undefined) return document;
  const copy: PolicyDraft = { ...document };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
    return copy;
  }
  const child = isPlainObject(copy[head]) ? (copy[head] as PolicyDraft) : {};
  const updated = setAt(child, rest, value);
  if (Object.keys(updated).length === 0 && value === undefined) delete copy[head];
  else copy[head] = updated;
  return copy;
}

/** The problems of a field: its own path and everything beneath it ("readCache.pin[2]"). */
export function problemsAt(problems: readonly Problem[], path: string): Problem[] {
  return problems.filter((problem) => problem.path === path || problem.path.startsWith(`${path}[`) || problem.path.startsWith(`${path}.`));
}

/** Lists are edited one entry per line. */
export function listToLines(value: unknown): string {
  return Array.isArray(value) ? value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join("\n") : "";
}

export function linesToList(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

export const byteUnits = [
  { label: "MiB", bytes: 1024 ** 2 },
  { label: "GiB", bytes: 1024 ** 3 },
  { label: "TiB", bytes: 1024 ** 4 },
] as const;

/** 2147483648 → { amount: "2", unit: "GiB" }: the largest unit that divides it exactly. */
export function splitBytes(bytes: unknown): { amount: string; unit: number } {
  if (typeof bytes !== "number" || !Number.isFinite(bytes))
    return { amount: bytes === undefined || bytes === null ? "" : String(bytes), unit: byteUnits[0].bytes };
  const unit = [...byteUnits].reverse().find((candidate) => bytes !== 0 && bytes % candidate.bytes === 0) ?? byteUnits[0];
  return { amount: String(bytes / unit.bytes), unit: unit.bytes };
}

/** What the user typed: a number when it is one (the schema judges range and wholeness), else the text. */
export function parseAmount(text: string, multiplier = 1): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return trimmed;
  return Math.round(Number(trimmed) * multiplier * 1e6) / 1e6;
}
