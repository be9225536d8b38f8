package policy

// EffectiveReadCacheBudgetBytes is the read cache's budget on this machine now: the smallest of
// the absolute cap, the share of MemAvailable and what stays above the free-memory floor, never
// below zero, so the cache can never take the floor away from applications. Pinned ranges count
// within it. The agent re-evaluates it at every sample and shrinks at once when it falls.
// Mirrors effectiveReadCacheBudgetBytes in packages/policy/src/budget.ts.
func EffectiveReadCacheBudgetBytes(rc ReadCache, memAvailableBytes int64) int64 {
	if !rc.Enabled || memAvailableBytes <= 0 {
		return 0
	}
	budget := memAvailableBytes / 100 * rc.BudgetPercentOfAvailable
	// Split so the product cannot overflow: floor(m*p/100) = (m/100)*p + floor((m%100)*p/100).
	budget += memAvailableBytes % 100 * rc.BudgetPercentOfAvailable / 100
	budget = min(budget, max(0, memAvailableBytes-rc.FreeMemoryFloorBytes))
	if rc.BudgetBytes != nil {
		budget = min(budget, *rc.BudgetBytes)
	}
	return budget
}
