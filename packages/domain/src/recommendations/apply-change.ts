// What Apply writes: the server's own policy layer with the recommended change on top. A layer
// sets only what it means to set (inheritance fills the rest), so the change touches only its
// own fields, and lists gain the new entry at the end, once.
import type { PolicyChange } from "./types.js";

type Layer = Record<string, unknown>;

function section(layer: Layer, name: string): Layer {
  const value = layer[name];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? { ...(value as Layer) } : {};
}

function appended(list: unknown, entry: string): string[] {
  const current = Array.isArray(list) ? (list as string[]) : [];
  return current.includes(entry) ? [...current] : [...current, entry];
}

/**
 * A new layer (the input is not changed). `inherited` is the effective policy the server runs,
 * whose include list the layer must repeat: a layer's list replaces the inherited one.
 */
export function applyPolicyChange(layer: Layer, change: PolicyChange, inherited: Layer): Layer {
  const next: Layer = { ...layer, schemaVersion: 1 };
  const inheritedReadCache = section(inherited, "readCache");
  const inheritedWrite = section(inherited, "writeOptimization");
  switch (change.type) {
    case "set_read_cache_budget": {
      next.readCache = { ...section(layer, "readCache"), budgetBytes: change.budgetBytes };
      return next;
    }
    case "add_read_cache_include": {
      const readCache = section(layer, "readCache");
      readCache.include = appended(readCache.include ?? inheritedReadCache.include, change.pattern);
      next.readCache = readCache;
      return next;
    }
    case "add_preallocation_rule": {
      const write = section(layer, "writeOptimization");
      const rules = (
        Array.isArray(write.preallocation)
          ? write.preallocation
          : Array.isArray(inheritedWrite.preallocation)
            ? inheritedWrite.preallocation
            : []
      ) as Layer[];
      write.enabled = true;
      write.preallocation = rules.some((rule) => rule.pattern === change.pattern)
        ? [...rules]
        : [...rules, { pattern: change.pattern, chunkBytes: change.chunkBytes }];
      next.writeOptimization = write;
      return next;
    }
    case "add_defragmentation_include": {
      const write = section(layer, "writeOptimization");
      const defrag = { ...section(inheritedWrite, "defragmentation"), ...section(write, "defragmentation") };
      write.enabled = true;
      write.defragmentation = { ...section(write, "defragmentation"), enabled: true, include: appended(defrag.include, change.pattern) };
      next.writeOptimization = write;
      return next;
    }
    case "set_telemetry_ebpf": {
      next.telemetry = { ...section(layer, "telemetry"), ebpf: change.mode };
      return next;
    }
  }
}

/** One line for the policy version's comment and the audit log. */
export function describePolicyChange(change: PolicyChange): string {
  switch (change.type) {
    case "set_read_cache_budget":
      return `readCache.budgetBytes = ${change.budgetBytes}`;
    case "add_read_cache_include":
      return `readCache.include += ${change.pattern}`;
    case "add_preallocation_rule":
      return `writeOptimization.preallocation += ${change.pattern} (${change.chunkBytes} bytes)`;
    case "add_defragmentation_include":
      return `writeOptimization.defragmentation.include += ${change.pattern}`;
    case "set_telemetry_ebpf":
      return `telemetry.ebpf = ${change.mode}`;
  }
}
