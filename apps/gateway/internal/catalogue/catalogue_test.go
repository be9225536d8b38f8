package catalogue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

const (
	sourcePath = "../../../../packages/domain/metrics/catalogue.json"
	docsPath   = "../../../../docs/metrics.md"
)

// TestGeneratedFromCurrentSource fails when catalogue.json changed and catalogue_gen.go was not
// regenerated, or when catalogue_gen.go was edited by hand.
func TestGeneratedFromCurrentSource(t *testing.T) {
	source, err := os.ReadFile(sourcePath)
	if err != nil {
		t.Skipf("catalogue.json not found (module built outside the monorepo): %v", err)
	}
	sum := sha256.Sum256(source)
	if got := hex.EncodeToString(sum[:]); got != SourceSHA256 {
		t.Fatalf("catalogue_gen.go is stale (made from %s, catalogue.json is %s): run node packages/domain/scripts/generate-catalogue.mjs", SourceSHA256, got)
	}
	var parsed struct {
		Metrics []struct {
			Name       string    `json:"name"`
			Type       string    `json:"type"`
			ValueType  string    `json:"valueType"`
			Unit       string    `json:"unit"`
			Attributes []string  `json:"attributes"`
			Table      *string   `json:"table"`
			Columns    []string  `json:"columns"`
			Bounds     []float64 `json:"bounds"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(source, &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed.Metrics) != len(Metrics) {
		t.Fatalf("catalogue.json has %d metrics, catalogue_gen.go %d", len(parsed.Metrics), len(Metrics))
	}
	for i, want := range parsed.Metrics {
		table := ""
		if want.Table != nil {
			table = *want.Table
		}
		got := Metrics[i]
		wantMetric := Metric{Name: want.Name, Type: want.Type, ValueType: want.ValueType, Unit: want.Unit,
			Attributes: want.Attributes, Table: table, Columns: want.Columns, Bounds: want.Bounds}
		if !reflect.DeepEqual(got, wantMetric) {
			t.Errorf("metric %d differs from catalogue.json:\n got %+v\nwant %+v", i, got, wantMetric)
		}
	}
}

// TestDocsListTheSameMetrics keeps docs/metrics.md, the wire contract, naming exactly the
// catalogue's metrics with the same units.
func TestDocsListTheSameMetrics(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Skipf("docs/metrics.md not found: %v", err)
	}
	rows := regexp.MustCompile("(?m)^\\| `((?:system|spindle)\\.[a-z0-9_.]+)` \\|([^|]*)\\|").FindAllStringSubmatch(string(doc), -1)
	var documented, catalogued []string
	units := map[string]string{}
	for _, row := range rows {
		documented = append(documented, row[1])
		units[row[1]] = row[2]
	}
	for _, m := range Metrics {
		catalogued = append(catalogued, m.Name)
		if cell, ok := units[m.Name]; ok && !regexp.MustCompile("`"+regexp.QuoteMeta(m.Unit)+"`").MatchString(cell) {
			t.Errorf("%s: docs/metrics.md gives the type and unit %q, the catalogue says unit %q", m.Name, cell, m.Unit)
		}
	}
	slices.Sort(documented)
	slices.Sort(catalogued)
	if !slices.Equal(documented, catalogued) {
		t.Errorf("docs/metrics.md documents %v\nthe catalogue lists %v", documented, catalogued)
	}
}

func TestLookup(t *testing.T) {
	if m, ok := Lookup("system.disk.io"); !ok || m.Unit != "By" || m.Table != "disk_io" {
		t.Errorf("Lookup(system.disk.io) = %+v, %v", m, ok)
	}
	if _, ok := Lookup("system.disk.nonexistent"); ok {
		t.Error("found a metric that does not exist")
	}
}
