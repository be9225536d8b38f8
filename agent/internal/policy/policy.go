// Package policy is the agent's side of the cache/acceleration policy contract: the same fields,
// defaults, rules, error codes and paths as the TypeScript schema in packages/policy (the single
// source of truth, also published as policy.schema.json). The shared vectors in
// packages/policy/vectors hold both implementations to identical answers.
package policy

// Limits and defaults; packages/policy/src/schema.ts (policyLimits) holds the same numbers.
const (
	mebibyte = int64(1) << 20
	gibibyte = int64(1) << 30

	SchemaVersion = 1

	MaxBytes                            = int64(1) << 50 // 1 PiB, the upper bound of every byte size
	MinBudgetBytes                      = 16 * mebibyte
	MinBudgetPercentOfAvailable         = 1
	MaxBudgetPercentOfAvailable         = 90
	DefaultBudgetPercentOfAvailable     = 25
	MinFreeMemoryFloorBytes             = 64 * mebibyte
	DefaultFreeMemoryFloorBytes         = 512 * mebibyte
	MinScanResistanceThresholdBytes     = mebibyte
	DefaultScanResistanceThresholdBytes = 128 * mebibyte
	MaxPatterns                         = 256
	MaxPreallocationRules               = 64
	MinChunkBytes                       = mebibyte
	MaxChunkBytes                       = gibibyte
	DefaultChunkBytes                   = 64 * mebibyte
	MinExtentThreshold                  = 2
	MaxExtentThreshold                  = 100_000
	DefaultExtentThreshold              = 16
	MinIntervalSeconds                  = 1
	MaxIntervalSeconds                  = 3600
	DefaultIntervalSeconds              = 10
	MaxScanPaths                        = 64
	MinScanPeriodSeconds                = 60
	MaxScanPeriodSeconds                = 7 * 24 * 3600
	DefaultScanPeriodSeconds            = 3600
	MinHoldoutPercent                   = 0
	MaxHoldoutPercent                   = 50
	DefaultHoldoutPercent               = 10
)

// Policy is a validated policy with every default applied: what the agent enforces.
type Policy struct {
	SchemaVersion     int               `json:"schemaVersion"`
	ReadCache         ReadCache         `json:"readCache"`
	WriteOptimization WriteOptimization `json:"writeOptimization"`
	Telemetry         Telemetry         `json:"telemetry"`
}

// ReadCache keeps the hot set of included files resident in the page cache within a budget.
type ReadCache struct {
	Enabled bool `json:"enabled"`
	// BudgetBytes is an absolute cap; nil means no cap beyond the percentage.
	BudgetBytes              *int64 `json:"budgetBytes"`
	BudgetPercentOfAvailable int64  `json:"budgetPercentOfAvailable"`
	FreeMemoryFloorBytes     int64  `json:"freeMemoryFloorBytes"`
	// Include and Exclude are absolute glob patterns (see MatchesPattern); exclude wins.
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
	// Pin lists plain absolute paths (files or directories) kept resident within the budget.
	Pin                          []string `json:"pin"`
	ScanResistanceThresholdBytes int64    `json:"scanResistanceThresholdBytes"`
	Prefetch                     bool     `json:"prefetch"`
	// HoldoutPercent of the managed pages (groups drawn by hash, again for each policy version)
	// are left alone as the control group that measures what the cache caused; 0 leaves none.
	HoldoutPercent int64 `json:"holdoutPercent"`
}

// WriteOptimization preallocates growing files and defragments fragmented ones.
type WriteOptimization struct {
	Enabled         bool                `json:"enabled"`
	Preallocation   []PreallocationRule `json:"preallocation"`
	Defragmentation Defragmentation     `json:"defragmentation"`
}

// PreallocationRule reserves space ahead of the end of growing files matching Pattern: ChunkBytes
// first, then windows that follow each file's growth rate (the agent's writeopt sizes them).
type PreallocationRule struct {
	Pattern    string `json:"pattern"`
	ChunkBytes int64  `json:"chunkBytes"`
}

// Defragmentation rewrites included files with more than ExtentThreshold extents, online.
type Defragmentation struct {
	Enabled         bool     `json:"enabled"`
	ExtentThreshold int64    `json:"extentThreshold"`
	IdleOnly        bool     `json:"idleOnly"`
	Include         []string `json:"include"`
}

// Telemetry sets how the agent samples.
type Telemetry struct {
	IntervalSeconds   int64             `json:"intervalSeconds"`
	EBPF              EBPFMode          `json:"ebpf"`
	FragmentationScan FragmentationScan `json:"fragmentationScan"`
}

// FragmentationScan counts the extents of files under Paths every PeriodSeconds; no paths, no scan.
type FragmentationScan struct {
	Paths         []string `json:"paths"`
	PeriodSeconds int64    `json:"periodSeconds"`
}

// EBPFMode says whether the agent uses eBPF programs.
type EBPFMode string

const (
	// EBPFOn fails the policy when eBPF cannot be loaded.
	EBPFOn EBPFMode = "on"
	// EBPFAuto uses eBPF where the kernel and privileges allow, and /proc otherwise.
	EBPFAuto EBPFMode = "auto"
	// EBPFOff never loads eBPF programs.
	EBPFOff EBPFMode = "off"
)

// Default is the policy of a document that sets nothing: every feature off.
func Default() Policy {
	return Policy{
		SchemaVersion: SchemaVersion,
		ReadCache: ReadCache{
			BudgetPercentOfAvailable:     DefaultBudgetPercentOfAvailable,
			FreeMemoryFloorBytes:         DefaultFreeMemoryFloorBytes,
			Include:                      []string{},
			Exclude:                      []string{},
			Pin:                          []string{},
			ScanResistanceThresholdBytes: DefaultScanResistanceThresholdBytes,
			HoldoutPercent:               DefaultHoldoutPercent,
		},
		WriteOptimization: WriteOptimization{
			Preallocation: []PreallocationRule{},
			Defragmentation: Defragmentation{
				ExtentThreshold: DefaultExtentThreshold,
				IdleOnly:        true,
				Include:         []string{},
			},
		},
		Telemetry: Telemetry{
			IntervalSeconds: DefaultIntervalSeconds,
			EBPF:            EBPFAuto,
			FragmentationScan: FragmentationScan{
				Paths:         []string{},
				PeriodSeconds: DefaultScanPeriodSeconds,
			},
		},
	}
}
