package ingest

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

var rootFS = otlpfixture.Filesystem{Mountpoint: "/", Device: "/dev/vda", Type: "ext4", Size: 1000, Used: 700, Free: 250, Reserved: 50}

func mapSpace(t *testing.T, filesystems []otlpfixture.Filesystem, spool *[2]int64, change func(md pmetric.Metrics)) (telemetry.Deep, error) {
	t.Helper()
	s := sample(4)
	md := otlpfixture.Build(s)
	otlpfixture.AddSpace(md, 0, s, filesystems, spool)
	if change != nil {
		change(md)
	}
	request, err := mapPdata(md)
	if err != nil {
		return telemetry.Deep{}, err
	}
	return request.Batches[0].Deep, nil
}

func TestMapFilesystemAndSpool(t *testing.T) {
	data := otlpfixture.Filesystem{Mountpoint: "/var/lib/pg", Device: "/dev/nvme0n1p3", Type: "xfs", Size: 4 << 40, Used: 3 << 40, Free: 1 << 40, Reserved: 0}
	deep, err := mapSpace(t, []otlpfixture.Filesystem{data, rootFS}, &[2]int64{123456, 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []telemetry.FilesystemRow{
		{Time: sampleEnd.UTC(), Mountpoint: "/", Device: "/dev/vda", FSType: "ext4", IntervalSeconds: sampleEnd.Sub(sampleStart).Seconds(), SizeBytes: 1000, FreeBytes: 300, AvailableBytes: 250},
		{Time: sampleEnd.UTC(), Mountpoint: "/var/lib/pg", Device: "/dev/nvme0n1p3", FSType: "xfs", IntervalSeconds: sampleEnd.Sub(sampleStart).Seconds(), SizeBytes: 4 << 40, FreeBytes: 1 << 40, AvailableBytes: 1 << 40},
	}
	if len(deep.Filesystems) != 2 || deep.Filesystems[0] != want[0] || deep.Filesystems[1] != want[1] {
		t.Errorf("filesystems:\n got %+v\nwant %+v", deep.Filesystems, want)
	}
	if len(deep.AgentSpool) != 1 || deep.AgentSpool[0].SpoolBytes != 123456 || deep.AgentSpool[0].PendingBatches != 7 {
		t.Errorf("agent spool = %+v, want 123456 bytes in 7 batches", deep.AgentSpool)
	}
}

func TestMapFilesystemRefusesWhatItCannotStore(t *testing.T) {
	for name, c := range map[string]struct {
		fs     otlpfixture.Filesystem
		spool  *[2]int64
		change func(md pmetric.Metrics)
		want   string
	}{
		"states that do not add up": {fs: otlpfixture.Filesystem{Mountpoint: "/", Device: "/dev/vda", Type: "ext4", Size: 1000, Used: 900, Free: 250, Reserved: 50}, want: "must equal the size"},
		"a state missing": {fs: rootFS, change: func(md pmetric.Metrics) {
			dropPoint(md, "system.filesystem.usage", "reserved")
		}, want: "reserved is missing"},
		"an unknown state": {fs: rootFS, change: func(md pmetric.Metrics) {
			renameState(md, "reserved", "spare")
		}, want: `state "spare"`},
		"spool size without batches": {spool: &[2]int64{10, 1}, change: func(md pmetric.Metrics) {
			sm := md.ResourceMetrics().At(0).ScopeMetrics()
			metrics := sm.At(sm.Len() - 1).Metrics()
			metrics.RemoveIf(func(m pmetric.Metric) bool { return m.Name() == "spindle.agent.spool.batches" })
		}, want: "travel together"},
	} {
		t.Run(name, func(t *testing.T) {
			var filesystems []otlpfixture.Filesystem
			if c.fs.Mountpoint != "" {
				filesystems = []otlpfixture.Filesystem{c.fs}
			}
			_, err := mapSpace(t, filesystems, c.spool, c.change)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func eachFilesystemUsagePoint(md pmetric.Metrics, fn func(points pmetric.NumberDataPointSlice)) {
	rm := md.ResourceMetrics().At(0)
	for i := 0; i < rm.ScopeMetrics().Len(); i++ {
		metrics := rm.ScopeMetrics().At(i).Metrics()
		for j := 0; j < metrics.Len(); j++ {
			if metrics.At(j).Name() == "system.filesystem.usage" {
				fn(metrics.At(j).Gauge().DataPoints())
			}
		}
	}
}

func dropPoint(md pmetric.Metrics, _ string, state string) {
	eachFilesystemUsagePoint(md, func(points pmetric.NumberDataPointSlice) {
		points.RemoveIf(func(dp pmetric.NumberDataPoint) bool {
			v, _ := dp.Attributes().Get("system.filesystem.state")
			return v.Str() == state
		})
	})
}

func renameState(md pmetric.Metrics, from, to string) {
	eachFilesystemUsagePoint(md, func(points pmetric.NumberDataPointSlice) {
		for i := 0; i < points.Len(); i++ {
			if v, _ := points.At(i).Attributes().Get("system.filesystem.state"); v.Str() == from {
				points.At(i).Attributes().PutStr("system.filesystem.state", to)
			}
		}
	})
}
