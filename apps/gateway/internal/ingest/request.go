package ingest

import (
	"fmt"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
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
func Map(md *otlp.Metrics) (Request, error) {
	request := Request{IgnoredPoints: map[string]int{}}
	for i := range md.ResourceMetrics {
		batch, err := mapResource(&md.ResourceMetrics[i], request.IgnoredPoints)
		if err != nil {
			return Request{}, fmt.Errorf("resource metrics %d: %w", i, err)
		}
		request.Batches = append(request.Batches, batch)
	}
	return request, nil
}

func mapResource(rm *otlp.ResourceMetrics, ignored map[string]int) (telemetry.Batch, error) {
	seq, err := batchSeq(rm.Resource)
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
func mapRows(rm *otlp.ResourceMetrics, ignored map[string]int) (telemetry.Batch, error) {
	disk := diskRows{}
	memory := memoryRows{}
	deep := newDeepRows()
	curves := mrcRows{}
	for s := range rm.ScopeMetrics {
		metrics := rm.ScopeMetrics[s].Metrics
		for m := range metrics {
			metric := &metrics[m]
			var err error
			if spec, ok := diskMetrics[metric.Name]; ok {
				err = disk.add(metric, spec)
			} else if spec, ok := memoryMetrics[metric.Name]; ok {
				err = memory.add(metric, spec)
			} else if isMRCMetric(metric.Name) {
				err = curves.add(metric)
			} else if known, deepErr := deep.add(metric); known {
				err = deepErr
			} else {
				ignored[metric.Name] += metric.PointCount()
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
	if deepOut.Capabilities, err = capabilities(rm.Resource); err != nil {
		return telemetry.Batch{}, err
	}
	missRatioCurves, err := curves.rows()
	if err != nil {
		return telemetry.Batch{}, err
	}
	return telemetry.Batch{Host: hostInfo(rm.Resource), DiskIO: diskIO, Memory: memoryRowsOut, Deep: deepOut,
		MissRatioCurves: missRatioCurves}, nil
}
