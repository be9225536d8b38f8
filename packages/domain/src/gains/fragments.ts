// Fragments prevented by write optimisation, measured against a comparison group: files growing
// in the same watched directories that no rule manages (spindle.write_opt.unmanaged.*). Their
// extents per GiB grown is the rate the managed files would have fragmented at without the rule:
//   expected = managed GiB grown × unmanaged extents per GiB grown;  prevented = expected − actual.
// Negative when managed files fragmented more than the comparison group: shown as it is.
import { isPresent, measured, notMeasured, type MaybeNumber, type Measured } from "./measured.js";

const gib = 1024 ** 3;

export interface WriteOptGrowthSums {
  managedGrownBytes: MaybeNumber;
  managedExtentsAdded: MaybeNumber;
  unmanagedGrownBytes: MaybeNumber;
  unmanagedExtentsAdded: MaybeNumber;
  samples: number;
}

export interface FragmentsPrevented {
  prevented: number;
  expectedExtents: number;
  actualExtents: number;
  managedExtentsPerGib: number;
  unmanagedExtentsPerGib: number;
}

export function fragmentsPrevented(sums: WriteOptGrowthSums): Measured<FragmentsPrevented> {
  const { managedGrownBytes, managedExtentsAdded, unmanagedGrownBytes, unmanagedExtentsAdded } = sums;
  if (!isPresent(managedGrownBytes) || !isPresent(managedExtentsAdded)) {
    return notMeasured("the agent sent no growth of managed files in this range (write optimisation off or an older agent)");
  }
  if (!isPresent(unmanagedGrownBytes) || !isPresent(unmanagedExtentsAdded)) {
    return notMeasured("the agent sent no comparison group (unmanaged growing files in the watched directories)");
  }
  if (managedGrownBytes <= 0) return notMeasured("no managed file grew in this range");
  if (unmanagedGrownBytes <= 0)
    return notMeasured("no unmanaged file grew in the watched directories, so there is no rate to compare with");
  const unmanagedExtentsPerGib = unmanagedExtentsAdded / (unmanagedGrownBytes / gib);
  const expectedExtents = (managedGrownBytes / gib) * unmanagedExtentsPerGib;
  return measured(
    {
      prevented: expectedExtents - managedExtentsAdded,
      expectedExtents,
      actualExtents: managedExtentsAdded,
      managedExtentsPerGib: managedExtentsAdded / (managedGrownBytes / gib),
      unmanagedExtentsPerGib,
    },
    [
      {
        label: "managed files",
        source: "extents added while growing (write_opt)",
        samples: managedGrownBytes / 2 ** 20,
        sampleUnit: "MiB grown",
      },
      {
        label: "comparison group",
        source: "unmanaged growing files in the watched directories (write_opt)",
        samples: unmanagedGrownBytes / 2 ** 20,
        sampleUnit: "MiB grown",
      },
    ],
  );
}
