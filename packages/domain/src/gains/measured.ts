// Every gains figure is either measured, with the inputs it rests on, or "not measured" with the
// reason. A missing input is never a zero and never a guess (issue 7, docs/gains.md).

/** One input a figure rests on: where it came from and how many samples it summarises. */
export interface BasisInput {
  /** What was measured, in the user's words: "storage read latency". */
  label: string;
  /** Where it came from: "eBPF latency histogram (disk_latency) on sda, sdb". */
  source: string;
  /** How many measurements it rests on, in `sampleUnit`s. */
  samples: number;
  /** "reads", "timed reads", "KiB of hits". */
  sampleUnit: string;
}

export type Measured<T> = { status: "measured"; value: T; basis: BasisInput[] } | { status: "not-measured"; reason: string };

export function measured<T>(value: T, basis: BasisInput[]): Measured<T> {
  return { status: "measured", value, basis };
}

export function notMeasured<T = never>(reason: string): Measured<T> {
  return { status: "not-measured", reason };
}

/** A counter or gauge as read from storage: null when no agent sent it in the range. */
export type MaybeNumber = number | null | undefined;

export function isPresent(value: MaybeNumber): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** "measured: eBPF latency histogram (disk_latency) on sda, 12,345 reads" for one input. */
export function describeBasisInput(input: BasisInput): string {
  return `${input.label}: ${input.source}, ${Math.round(input.samples).toLocaleString("en-US")} ${input.sampleUnit}`;
}

/** One line saying what a figure rests on, or why it is missing. */
export function describeMeasured(figure: Measured<unknown>): string {
  if (figure.status === "not-measured") return `not measured: ${figure.reason}`;
  return `measured: ${figure.basis.map(describeBasisInput).join("; ")}`;
}
