// What the read cache caused in a group of servers. A caused figure compares managed reads with
// the read cache's hash-selected holdout (ARCHITECTURE.md "Gains", docs/gains.md): hits on
// managed files alone are not a saving, since the page cache serves most of them with or
// without Spindle. No caused read-cache figure is stored yet, so a group says so; when one
// exists, this is the one function that reads it for the fleet page's groups.
import type { CausedFigure } from "../types/fleet";

export function causedReadCacheGains(_serverIds: readonly string[]): CausedFigure {
  return {
    status: "not-measured",
    reason: "no caused figure yet: reads saved are credited only against the read cache's holdout, which is not measured yet (docs/gains.md); hits on managed files are described on each server's Gains section, not counted as savings",
  };
}
