package catalogue

import (
	"os"
	"strings"
	"testing"
)

// TestCatalogueMatchesContract keeps the code and docs/metrics.md (the gateway's contract)
// naming the same metrics with the same units.
func TestCatalogueMatchesContract(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/metrics.md")
	if err != nil {
		t.Skipf("docs/metrics.md not found (module built outside the monorepo): %v", err)
	}
	var all []Metric
	for _, m := range IntCounters {
		all = append(all, m.Metric)
	}
	for _, m := range FloatCounters {
		all = append(all, m.Metric)
	}
	for _, m := range IntGauges {
		all = append(all, m.Metric)
	}
	for _, m := range FloatGauges {
		all = append(all, m.Metric)
	}
	for _, m := range Histograms {
		all = append(all, m.Metric)
	}
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m.Name] {
			t.Errorf("%s listed twice", m.Name)
		}
		seen[m.Name] = true
		row := rowOf(string(doc), m.Name)
		if row == "" {
			t.Errorf("%s is not in docs/metrics.md", m.Name)
			continue
		}
		if !strings.Contains(row, "`"+m.Unit+"`") {
			t.Errorf("%s: unit %q does not match docs/metrics.md row %q", m.Name, m.Unit, row)
		}
	}
}

func rowOf(doc, name string) string {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| `"+name+"`") {
			return line
		}
	}
	return ""
}
