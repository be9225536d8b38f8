// Package catalogue is the gateway's copy of the metric catalogue, generated (catalogue_gen.go)
// from packages/domain/metrics/catalogue.json by packages/domain/scripts/generate-catalogue.mjs.
// The ingest mappers take units, types and histogram bounds from here, never from literals.
package catalogue

import "fmt"

// Metric is one catalogue entry: how it travels over OTLP and where it is stored.
type Metric struct {
	Name       string
	Type       string // sum, gauge or histogram
	ValueType  string // int or double
	Unit       string // UCUM, as sent over OTLP
	Attributes []string
	Table      string // empty while the gateway accepts and ignores the metric
	Columns    []string
	Bounds     []float64 // histograms: explicit bucket upper bounds, in Unit
}

// Capability is one entry of spindle.agent.capabilities.
type Capability struct {
	Name    string
	Label   string
	Metrics []string
}

var byName = func() map[string]Metric {
	m := make(map[string]Metric, len(Metrics))
	for _, metric := range Metrics {
		m[metric.Name] = metric
	}
	return m
}()

// Lookup finds a metric by its OTLP name.
func Lookup(name string) (Metric, bool) {
	m, ok := byName[name]
	return m, ok
}

// MustLookup is for the mappers' static tables: a name missing from the catalogue is a
// programming error that must stop the gateway at start-up, not a runtime condition.
func MustLookup(name string) Metric {
	m, ok := byName[name]
	if !ok {
		panic(fmt.Sprintf("metric %s is not in the catalogue (packages/domain/metrics/catalogue.json)", name))
	}
	return m
}
