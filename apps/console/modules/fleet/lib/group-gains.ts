// What the read cache caused in a group of servers. A caused figure compares managed reads with
// the read cache's hash-selected holdout (ARCHITECTURE.md "Gains", docs/gains.md): hits on
// managed files alone are not a saving, since the page cache serves most of them with or
// without Spindle. The console computes it per server over a chosen range, with a bootstrap
// interval over that server's intervals (modules/gains, the Gains page and its fleet ledger).
// Adding it up per group on every refresh of the fleet page would run one bootstrap per server
// of the fleet every 10 s, so the groups say where the figure is instead of showing none or an
// invented one; a per-server summary kept by the worker (as server_read_latency is for latency)
// would let this function add the group's servers up cheaply.
import type { CausedFigure } from "../types/fleet";

export function causedReadCacheGains(_tag: string | null): CausedFigure {
  return {
    status: "not-measured",
    reason:
      "not added up per group: the read cache's caused storage reads (against its holdout, with an interval) are computed per server on the Gains page, whose fleet ledger adds them up; hits on managed files are not counted as savings",
  };
}
