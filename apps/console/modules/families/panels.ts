// The panels drawn from metric families alone: each names the family columns it shows, and the
// generic machinery (the families API, family-panel.tsx) reads, rates and draws them. A new
// family's panel is one entry here (CONTRIBUTING.md, "Adding a metric family").
import type { FamilyTable } from "@spindle/domain";

export interface FamilyPanelLine {
  family: FamilyTable;
  /** An aggregate column of the family that sums deltas; drawn per second over interval_seconds. */
  column: string;
  label: string;
  color: string;
}

export interface FamilyPanel {
  /** data-testid "panel-<id>". */
  id: string;
  title: string;
  description: string;
  /** What kind of figure this is: a description is labelled as one, never as a saving. */
  basis: string;
  /** The capability whose absence explains an empty panel (catalogue.json capabilities). */
  capability: string;
  /** Why the panel is empty when the capability is there. */
  idle: string;
  unit: "bytes" | "count";
  lines: FamilyPanelLine[];
  /** A total shown as the first line's total minus the second's, when both were measured. */
  difference?: string;
}

export const familyPanels: FamilyPanel[] = [
  {
    id: "preallocation",
    title: "Preallocation: reserved and given back",
    description:
      "Space write optimisation reserved ahead of growing files, and the part of it given back unused once a file went idle. What it gives back as it stops is not reported, so the difference is an upper bound of what it still holds.",
    basis:
      "A description of what preallocation did on this server, not a saving: the fragments it prevented, against files grown without it, are in Gains.",
    capability: "accel.write_optimization.preallocation",
    idle: "No preallocation was measured in this range: no policy enables write optimisation here, or it has been off all along.",
    unit: "bytes",
    lines: [
      { family: "write_opt", column: "preallocated_bytes", label: "Reserved", color: "#2563eb" },
      { family: "write_opt_trimmed", column: "trimmed_bytes", label: "Given back", color: "#ea580c" },
    ],
    difference: "Reserved and not given back",
  },
];
