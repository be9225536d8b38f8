package ingest

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// Request is a validated export: one Batch per ResourceMetrics, in the order received.
type Request struct {
	Batches []telemetry.Batch
	// IgnoredPoints counts data points per metric name the gateway does not know, so that an
	// agent newer than the gateway can ship new collectors without its batches being rejected.
	IgnoredPoints map[string]int
}

// Map validates a decoded export and maps it onto rows. It is all or nothing: any invalid point
// fails the whole request, so a rejected batch never writes a row.
func Map(md pmetric.Metrics) (Request, error) {
	request := Request{IgnoredPoints: map[string]int{}}
	resources := md.ResourceMetrics()
	for i := 0; i < resources.Len(); i++ {
		batch, err := mapResource(resources.At(i), request.IgnoredPoints)
		if err != nil {
			return Request{}, fmt.Errorf("resource metrics %d: %w", i, err)
		}
		request.Batches = append(request.Batches, batch)
	}
	return request, nil
}

func mapResource(rm pmetric.ResourceMetrics, ignored map[string]int) (telemetry.Batch, error) {
	seq, err := batchSeq(rm.Resource())
	if err != nil {
		return telemetry.Batch{}, err
	}
	batch, err := mapRows(rm, ignored)
	if err != nil {
		return telemetry.Batch{}, fmt.Errorf("batch %d: %w", seq, err)
	}
	batch.Seq = seq
	batch.Digest = digest(batch)
	return batch, nil
}

// mapRows maps one ResourceMetrics in the agent's shape onto rows; the caller sets the sequence.
func mapRows(rm pmetric.ResourceMetrics, ignored map[string]int) (telemetry.Batch, error) {
	disk := diskRows{}
	memory := memoryRows{}
	deep := newDeepRows()
	curves := mrcRows{}
	scopes := rm.ScopeMetrics()
	for s := 0; s < scopes.Len(); s++ {
		metrics := scopes.At(s).Metrics()
		for m := 0; m < metrics.Len(); m++ {
			metric := metrics.At(m)
			var err error
			if spec, ok := diskMetrics[metric.Name()]; ok {
				err = disk.add(metric, spec)
			} else if spec, ok := memoryMetrics[metric.Name()]; ok {
				err = memory.add(metric, spec)
			} else if isMRCMetric(metric.Name()) {
				err = curves.add(metric)
			} else if known, deepErr := deep.add(metric); known {
				err = deepErr
			} else {
				ignored[metric.Name()] += dataPointCount(metric)
			}
			if err != nil {
				return telemetry.Batch{}, err
			}
		}
	}
	diskIO, err := disk.rows()
	if err != nil {
		return telemetry.Batch{}, err
	}
	memoryRowsOut, err := memory.rows()
	if err != nil {
		return telemetry.Batch{}, err
	}
	deepOut, err := deep.rows()
	if err != nil {
		return telemetry.Batch{}, err
	}
	if deepOut.Capabilities, err = capabilities(rm.Resource()); err != nil {
		return telemetry.Batch{}, err
	}
	missRatioCurves, err := curves.rows()
	if err != nil {
		return telemetry.Batch{}, err
	}
	return telemetry.Batch{Host: hostInfo(rm.Resource()), DiskIO: diskIO, Memory: memoryRowsOut, Deep: deepOut,
		MissRatioCurves: missRatioCurves}, nil
}

func dataPointCount(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return m.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		return m.Summary().DataPoints().Len()
	}
	return 0
}
