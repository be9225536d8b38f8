package policy

import "encoding/json"

// The sections of a policy, decoded field by field over the defaults; the field lists and
// limits are those of packages/policy/src/schema.ts.

func (d *decoder) policy(document any) Policy {
	policy := Default()
	root := location{}
	obj, ok := d.object(root, document, "schemaVersion", "readCache", "writeOptimization", "telemetry")
	if !ok {
		return policy
	}
	d.schemaVersion(obj, root)
	d.section(obj, root, "readCache", readCacheFields, func(o map[string]any, at location) {
		d.readCache(o, at, &policy.ReadCache)
	})
	d.section(obj, root, "writeOptimization", []string{"enabled", "preallocation", "defragmentation"},
		func(o map[string]any, at location) { d.writeOptimization(o, at, &policy.WriteOptimization) })
	d.section(obj, root, "telemetry", []string{"intervalSeconds", "ebpf", "fragmentationScan"},
		func(o map[string]any, at location) { d.telemetry(o, at, &policy.Telemetry) })
	return policy
}

func (d *decoder) schemaVersion(obj map[string]any, at location) {
	v, present := obj["schemaVersion"]
	if !present {
		d.add(at.key("schemaVersion"), CodeRequired, "is required")
		return
	}
	// Like a zod literal, any other value of any type is an unsupported version.
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && f == SchemaVersion {
			return
		}
	}
	d.add(at.key("schemaVersion"), CodeUnsupportedSchemaVersion,
		"must be 1: this version of Spindle understands schemaVersion 1 only")
}

var readCacheFields = []string{
	"enabled", "budgetBytes", "budgetPercentOfAvailable", "freeMemoryFloorBytes", "include",
	"exclude", "pin", "scanResistanceThresholdBytes", "prefetch", "holdoutPercent",
}

func (d *decoder) readCache(obj map[string]any, at location, rc *ReadCache) {
	d.boolean(obj, at, "enabled", &rc.Enabled)
	if v, present := obj["budgetBytes"]; present && v != nil {
		if n, ok := d.integer(at.key("budgetBytes"), "budgetBytes", v, MinBudgetBytes, MaxBytes); ok {
			rc.BudgetBytes = &n
		}
	}
	d.integerField(obj, at, "budgetPercentOfAvailable", MinBudgetPercentOfAvailable, MaxBudgetPercentOfAvailable,
		&rc.BudgetPercentOfAvailable)
	d.integerField(obj, at, "freeMemoryFloorBytes", MinFreeMemoryFloorBytes, MaxBytes, &rc.FreeMemoryFloorBytes)
	d.pathList(obj, at, "include", GlobPath, MaxPatterns, &rc.Include)
	d.pathList(obj, at, "exclude", GlobPath, MaxPatterns, &rc.Exclude)
	d.pathList(obj, at, "pin", PlainPath, MaxPatterns, &rc.Pin)
	d.integerField(obj, at, "scanResistanceThresholdBytes", MinScanResistanceThresholdBytes, MaxBytes,
		&rc.ScanResistanceThresholdBytes)
	d.boolean(obj, at, "prefetch", &rc.Prefetch)
	d.integerField(obj, at, "holdoutPercent", MinHoldoutPercent, MaxHoldoutPercent, &rc.HoldoutPercent)
}

func (d *decoder) writeOptimization(obj map[string]any, at location, wo *WriteOptimization) {
	d.boolean(obj, at, "enabled", &wo.Enabled)
	if v, present := obj["preallocation"]; present {
		if items, ok := d.list(at.key("preallocation"), v, MaxPreallocationRules); ok {
			wo.Preallocation = make([]PreallocationRule, 0, len(items))
			for i, item := range items {
				wo.Preallocation = append(wo.Preallocation, d.preallocationRule(at.key("preallocation").index(i), item))
			}
		}
	}
	d.section(obj, at, "defragmentation", []string{"enabled", "extentThreshold", "idleOnly", "include"},
		func(o map[string]any, at location) {
			defrag := &wo.Defragmentation
			d.boolean(o, at, "enabled", &defrag.Enabled)
			d.integerField(o, at, "extentThreshold", MinExtentThreshold, MaxExtentThreshold, &defrag.ExtentThreshold)
			d.boolean(o, at, "idleOnly", &defrag.IdleOnly)
			d.pathList(o, at, "include", GlobPath, MaxPatterns, &defrag.Include)
		})
}

func (d *decoder) preallocationRule(at location, v any) PreallocationRule {
	rule := PreallocationRule{ChunkBytes: DefaultChunkBytes}
	obj, ok := d.object(at, v, "pattern", "chunkBytes")
	if !ok {
		return rule
	}
	if pattern, present := obj["pattern"]; !present {
		d.add(at.key("pattern"), CodeRequired, "is required")
	} else if s, ok := d.pathString(at.key("pattern"), pattern, GlobPath); ok {
		rule.Pattern = s
	}
	d.integerField(obj, at, "chunkBytes", MinChunkBytes, MaxChunkBytes, &rule.ChunkBytes)
	return rule
}

func (d *decoder) telemetry(obj map[string]any, at location, t *Telemetry) {
	d.integerField(obj, at, "intervalSeconds", MinIntervalSeconds, MaxIntervalSeconds, &t.IntervalSeconds)
	mode := string(t.EBPF)
	d.enum(obj, at, "ebpf", []string{string(EBPFOn), string(EBPFAuto), string(EBPFOff)}, &mode)
	t.EBPF = EBPFMode(mode)
	d.section(obj, at, "fragmentationScan", []string{"paths", "periodSeconds"}, func(o map[string]any, at location) {
		d.pathList(o, at, "paths", PlainPath, MaxScanPaths, &t.FragmentationScan.Paths)
		d.integerField(o, at, "periodSeconds", MinScanPeriodSeconds, MaxScanPeriodSeconds,
			&t.FragmentationScan.PeriodSeconds)
	})
}
