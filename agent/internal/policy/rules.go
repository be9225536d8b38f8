package policy

import (
	"fmt"
	"slices"
)

// Cross-field rules, in the order of packages/policy/src/rules.ts. They run only on a policy
// whose shape is right, and apply to the effective policy the agent receives.

func ruleProblems(p Policy) []Problem {
	var problems []Problem
	add := func(at location, code Code, message string) {
		problems = append(problems, Problem{Path: at.String(), Code: code, Message: message})
	}
	duplicateRules(p, add)
	readCacheRules(p.ReadCache, add)
	writeOptimizationRules(p.WriteOptimization, add)
	telemetryRules(p.Telemetry, add)
	return problems
}

type addProblem func(at location, code Code, message string)

func duplicateRules(p Policy, add addProblem) {
	lists := []struct {
		at    location
		items []string
	}{
		{location{"readCache", "include"}, p.ReadCache.Include},
		{location{"readCache", "exclude"}, p.ReadCache.Exclude},
		{location{"readCache", "pin"}, p.ReadCache.Pin},
		{location{"writeOptimization", "defragmentation", "include"}, p.WriteOptimization.Defragmentation.Include},
		{location{"telemetry", "fragmentationScan", "paths"}, p.Telemetry.FragmentationScan.Paths},
	}
	for _, list := range lists {
		for i, entry := range list.items {
			if first := slices.Index(list.items, entry); first != i {
				add(list.at.index(i), CodeDuplicateEntry,
					fmt.Sprintf("repeats entry %d (%q): remove one of them", first, entry))
			}
		}
	}
	rules := p.WriteOptimization.Preallocation
	for i, rule := range rules {
		first := slices.IndexFunc(rules, func(r PreallocationRule) bool { return r.Pattern == rule.Pattern })
		if first != i {
			add(location{"writeOptimization", "preallocation", i, "pattern"}, CodeDuplicatePreallocationPattern,
				fmt.Sprintf("rule %d already preallocates %q: keep one rule per pattern with the chunk size you want",
					first, rule.Pattern))
		}
	}
}

func readCacheRules(rc ReadCache, add addProblem) {
	for i, pattern := range rc.Include {
		for _, exclude := range rc.Exclude {
			if exclude == pattern || MatchesPattern(exclude, literalPrefix(pattern)) {
				add(location{"readCache", "include", i}, CodeIncludeShadowedByExclude,
					fmt.Sprintf("every file it matches is excluded by %q (exclude wins): remove one of the two", exclude))
				break
			}
		}
	}
	if len(rc.Pin) > 0 && !rc.Enabled {
		add(location{"readCache", "pin"}, CodePinRequiresReadCache,
			"pins paths while readCache.enabled is false: enable the read cache or set pin to []")
	}
	if rc.Enabled && len(rc.Include) == 0 {
		add(location{"readCache", "include"}, CodeIncludeRequired,
			`the read cache is enabled but manages no files: add at least one pattern, e.g. "/var/lib/postgresql/**"`)
	}
	if rc.Enabled && len(rc.Include) > 0 {
		for i, pin := range rc.Pin {
			excludedBy := slices.IndexFunc(rc.Exclude, func(pattern string) bool { return MatchesPattern(pattern, pin) })
			switch {
			case excludedBy >= 0:
				add(location{"readCache", "pin", i}, CodePinExcluded,
					fmt.Sprintf("is excluded by %q and would never be cached: unpin it or narrow the exclude", rc.Exclude[excludedBy]))
			case !rc.IsManaged(pin):
				add(location{"readCache", "pin", i}, CodePinNotIncluded,
					"matches no include pattern: pinned paths must be managed by the cache, so add a pattern that covers it")
			}
		}
	}
	if rc.BudgetBytes != nil && rc.ScanResistanceThresholdBytes >= *rc.BudgetBytes {
		add(location{"readCache", "scanResistanceThresholdBytes"}, CodeScanThresholdExceedsBudget,
			fmt.Sprintf("must be below budgetBytes (%s), or one sequential scan can evict the whole hot set before it is dropped behind",
				formatBytes(*rc.BudgetBytes)))
	}
}

func writeOptimizationRules(wo WriteOptimization, add addProblem) {
	if !wo.Enabled && len(wo.Preallocation) > 0 {
		add(location{"writeOptimization", "preallocation"}, CodePreallocationRequiresWriteOptimization,
			"lists rules while writeOptimization.enabled is false: enable write optimisation or set preallocation to []")
	}
	defrag := wo.Defragmentation
	if defrag.Enabled && !wo.Enabled {
		add(location{"writeOptimization", "defragmentation", "enabled"}, CodeDefragmentationRequiresWriteOptimization,
			"defragmentation is part of write optimisation: set writeOptimization.enabled to true as well")
	}
	if defrag.Enabled && len(defrag.Include) == 0 {
		add(location{"writeOptimization", "defragmentation", "include"}, CodeDefragmentationIncludeRequired,
			"defragmentation is enabled but may touch no files: list the patterns of files it may rewrite")
	}
}

func telemetryRules(t Telemetry, add addProblem) {
	if t.FragmentationScan.PeriodSeconds < t.IntervalSeconds {
		add(location{"telemetry", "fragmentationScan", "periodSeconds"}, CodeFragmentationPeriodBelowInterval,
			fmt.Sprintf("must be at least telemetry.intervalSeconds (%d): results are only exported once per interval",
				t.IntervalSeconds))
	}
}
