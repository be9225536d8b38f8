package policy

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
)

func TestEffectiveBudgetVectors(t *testing.T) {
	var vectors struct {
		Description string `json:"description"`
		Cases       []struct {
			Description       string          `json:"description"`
			ReadCache         json.RawMessage `json:"readCache"`
			MemAvailableBytes int64           `json:"memAvailableBytes"`
			BudgetBytes       int64           `json:"budgetBytes"`
		} `json:"cases"`
	}
	readJSON(t, filepath.Join(vectorsDir, "effective-budget.json"), &vectors)
	if len(vectors.Cases) == 0 {
		t.Fatal("effective-budget.json has no cases")
	}
	for _, c := range vectors.Cases {
		policy, err := Parse([]byte(`{"schemaVersion":1,"readCache":` + string(c.ReadCache) + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.Description, err)
		}
		if got := EffectiveReadCacheBudgetBytes(policy.ReadCache, c.MemAvailableBytes); got != c.BudgetBytes {
			t.Errorf("%s: got %d, want %d", c.Description, got, c.BudgetBytes)
		}
	}
}

func TestEffectiveBudgetDoesNotOverflow(t *testing.T) {
	rc := Default().ReadCache
	rc.Enabled = true
	rc.BudgetPercentOfAvailable = MaxBudgetPercentOfAvailable
	got := EffectiveReadCacheBudgetBytes(rc, math.MaxInt64)
	want := int64(math.MaxInt64/100*90 + math.MaxInt64%100*90/100)
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
