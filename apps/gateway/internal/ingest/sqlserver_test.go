package ingest

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func mapSQLServer(t *testing.T, change func(md pmetric.Metrics), instances ...otlpfixture.SQLServer) (telemetry.Deep, error) {
	t.Helper()
	s := sample(4)
	md := otlpfixture.Build(s)
	otlpfixture.AddSQLServer(md, 0, s, instances...)
	if change != nil {
		change(md)
	}
	request, err := mapPdata(md)
	if err != nil {
		return telemetry.Deep{}, err
	}
	return request.Batches[0].Deep, nil
}

func TestMapSQLServerKeepsUnmeasuredApartFromZero(t *testing.T) {
	batches, ratio := int64(1234), 0.97
	deep, err := mapSQLServer(t, nil,
		otlpfixture.SQLServer{Instance: "SALES", Batches: &batches, HitRatio: &ratio, LifeSeconds: 4200},
		// Just started: no batch delta yet, no page read yet.
		otlpfixture.SQLServer{Instance: "MSSQLSERVER", LifeSeconds: 0})
	if err != nil {
		t.Fatal(err)
	}
	seconds := sampleEnd.Sub(sampleStart).Seconds()
	if len(deep.SQLServer) != 2 {
		t.Fatalf("rows = %+v, want two instances", deep.SQLServer)
	}
	fresh, sales := deep.SQLServer[0], deep.SQLServer[1]
	if fresh.Instance != "MSSQLSERVER" || fresh.BatchRequests.Valid || fresh.BufferCacheHitRatio.Valid || fresh.PageLifeExpectancySeconds != 0 ||
		fresh.IntervalSeconds != seconds || !fresh.Time.Equal(sampleEnd) {
		t.Errorf("fresh instance = %+v, want batches and hit ratio not measured, life 0", fresh)
	}
	if sales.Instance != "SALES" || sales.BatchRequests != telemetry.Measure(1234) || !sales.BufferCacheHitRatio.Valid ||
		sales.BufferCacheHitRatio.V != 0.97 || sales.PageLifeExpectancySeconds != 4200 {
		t.Errorf("SALES = %+v, want 1234 batches, 0.97, 4200 s", sales)
	}
}

func TestMapSQLServerRefusesWhatItCannotStore(t *testing.T) {
	batches, bad := int64(5), 1.5
	for name, c := range map[string]struct {
		instance otlpfixture.SQLServer
		change   func(md pmetric.Metrics)
		want     string
	}{
		"a hit ratio above 1": {instance: otlpfixture.SQLServer{Instance: "A", HitRatio: &bad, LifeSeconds: 1}, want: "not a ratio"},
		"no instance attribute": {instance: otlpfixture.SQLServer{Instance: "A", LifeSeconds: 1}, change: func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.db.sqlserver.page_life_expectancy").Gauge().DataPoints().At(0).Attributes().Clear()
		}, want: "no spindle.db.sqlserver.instance attribute"},
		"batches without the page life expectancy": {instance: otlpfixture.SQLServer{Instance: "A", Batches: &batches, LifeSeconds: 1}, change: func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.db.sqlserver.page_life_expectancy").Gauge().DataPoints().RemoveIf(func(pmetric.NumberDataPoint) bool { return true })
		}, want: "is missing"},
		"cumulative batch requests": {instance: otlpfixture.SQLServer{Instance: "A", Batches: &batches, LifeSeconds: 1}, change: func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.db.sqlserver.batch_requests").Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		}, want: "cumulative temporality"},
		"an instance name too long to store": {instance: otlpfixture.SQLServer{Instance: strings.Repeat("x", 129), LifeSeconds: 1}, want: "longer than 128"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := mapSQLServer(t, c.change, c.instance)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
