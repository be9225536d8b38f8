package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// The FIEMAP scanner's gauges (docs/metrics.md, "Fragmentation"). Each describes the last
// complete scan of one root; the agent repeats them every interval until the next scan.
type fragmentationColumn int

const (
	fragFiles fragmentationColumn = iota
	fragFragmentedFiles
	fragExtents
	fragExcessExtents
	fragScanDuration
	fragUnsupportedFiles
	fragWorstFile
	fragmentationSummaryColumns = fragWorstFile
)

type fragmentationMetric struct {
	metric catalogue.Metric
	column fragmentationColumn
}

var fragmentationMetrics = func() map[string]fragmentationMetric {
	out := map[string]fragmentationMetric{}
	for column, name := range []string{"spindle.fragmentation.files", "spindle.fragmentation.fragmented_files",
		"spindle.fragmentation.extents", "spindle.fragmentation.excess_extents", "spindle.fragmentation.scan_duration",
		"spindle.fragmentation.unsupported_files", "spindle.fragmentation.file.extents"} {
		out[name] = fragmentationMetric{metric: catalogue.MustLookup(name), column: fragmentationColumn(column)}
	}
	return out
}()

// maxWorstFiles bounds what one root can put in fragmentation_worst_files; the agent sends 10.
const maxWorstFiles = 50

type fragmentationDraft struct {
	time   pcommon.Timestamp
	values [fragmentationSummaryColumns]int64
	filled [fragmentationSummaryColumns]bool
	files  []telemetry.FragmentedFile
	seen   map[string]bool
}

// fragmentationRows keeps, per root, the newest scan in the batch.
type fragmentationRows map[string]*fragmentationDraft

func (rows fragmentationRows) add(m *otlp.Metric, spec fragmentationMetric) error {
	return eachPoint(m, level, spec.metric.Unit, func(dp *otlp.NumberPoint) error { return rows.addPoint(dp, spec) })
}

func (rows fragmentationRows) addPoint(dp *otlp.NumberPoint, spec fragmentationMetric) error {
	root, err := stringAttribute(dp, "spindle.scan.root")
	if err != nil {
		return err
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	var value int64
	if spec.column == fragScanDuration {
		value, err = millisFromSecondsValue(dp)
	} else {
		value, err = countValue(dp)
	}
	if err != nil {
		return err
	}
	draft := rows[root]
	switch {
	case draft == nil || dp.Time > draft.time:
		draft = &fragmentationDraft{time: dp.Time, seen: map[string]bool{}}
		rows[root] = draft
	case dp.Time < draft.time:
		return nil // an older interval of the same root: the newer scan result wins
	}
	if spec.column != fragWorstFile {
		if draft.filled[spec.column] {
			return fmt.Errorf("root %s has two %s points at %s", root, spec.metric.Name, dp.Time)
		}
		draft.values[spec.column] = value
		draft.filled[spec.column] = true
		return nil
	}
	path, err := stringAttribute(dp, "file.path")
	if err != nil {
		return err
	}
	size, err := sizeAttribute(dp.Attributes)
	if err != nil {
		return err
	}
	if draft.seen[path] {
		return fmt.Errorf("root %s lists %s twice", root, path)
	}
	if len(draft.files) == maxWorstFiles {
		return fmt.Errorf("root %s lists more than %d worst files", root, maxWorstFiles)
	}
	draft.seen[path] = true
	draft.files = append(draft.files, telemetry.FragmentedFile{Path: path, Extents: value, SizeBytes: size})
	return nil
}

// sizeAttribute reads file.size, an int as the semantic conventions define it (a decimal
// string is accepted too).
func sizeAttribute(attrs otlp.Attributes) (int64, error) {
	v, ok := attrs.Get("file.size")
	if !ok {
		return 0, fmt.Errorf("the point has no file.size attribute")
	}
	var size int64
	switch v.Type {
	case pcommon.ValueTypeInt:
		size = v.Int
	case pcommon.ValueTypeStr:
		parsed, err := strconv.ParseInt(v.Str, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("file.size %q is not a whole number of bytes", v.Str)
		}
		size = parsed
	default:
		return 0, fmt.Errorf("file.size is a %s; expected an int (bytes)", v.Type)
	}
	if size < 0 {
		return 0, fmt.Errorf("file.size %d is negative", size)
	}
	return size, nil
}

// rows returns one scan per root, ordered by root; worst files most extents first.
func (rows fragmentationRows) rows() ([]telemetry.FragmentationScan, error) {
	out := make([]telemetry.FragmentationScan, 0, len(rows))
	for root, d := range rows {
		scan := telemetry.FragmentationScan{Time: d.time.AsTime().UTC(), Root: root, WorstFiles: d.files}
		filled := 0
		for column := range fragScanDuration { // the duration and unsupported files are optional
			if d.filled[column] {
				filled++
			}
		}
		switch filled {
		case 0:
		case int(fragScanDuration):
			scan.Summary = true
			scan.Files, scan.FragmentedFiles = d.values[fragFiles], d.values[fragFragmentedFiles]
			scan.Extents, scan.ExcessExtents = d.values[fragExtents], d.values[fragExcessExtents]
			scan.ScanDurationMs = telemetry.Measured{V: d.values[fragScanDuration], Valid: d.filled[fragScanDuration]}
			if d.filled[fragUnsupportedFiles] {
				unsupported := d.values[fragUnsupportedFiles]
				scan.UnsupportedFiles = &unsupported
			}
		default:
			return nil, fmt.Errorf("root %s: a scan needs files, fragmented_files, extents and excess_extents together (docs/metrics.md)", root)
		}
		if !scan.Summary && len(d.files) == 0 {
			continue
		}
		slices.SortFunc(scan.WorstFiles, func(a, b telemetry.FragmentedFile) int {
			return cmp.Or(cmp.Compare(b.Extents, a.Extents), cmp.Compare(a.Path, b.Path))
		})
		out = append(out, scan)
	}
	slices.SortFunc(out, func(a, b telemetry.FragmentationScan) int { return cmp.Compare(a.Root, b.Root) })
	return out, nil
}
