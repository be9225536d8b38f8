package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// The read cache's counters per hash bucket of page groups (spindle.read_cache.bucket.*,
// docs/metrics.md "Acceleration features"): one read_cache_holdout_bucket row per interval and
// bucket, the bucket an int attribute. The caused interval rests on the spread between buckets, so
// an interval must bring all 16 buckets and all four counters of each: a bucket missing would look
// like one without page groups and bias the interval, so such a batch is refused.
var holdoutBucketFamily = &counterFamily{table: "read_cache_holdout_bucket", keyAttr: "spindle.read_cache.bucket", intKey: true,
	columns:  []string{"managed_accessed_bytes", "managed_missed_bytes", "control_accessed_bytes", "control_missed_bytes"},
	required: []bool{true, true, true, true}}

// holdoutBucketRows turns the family's drafts into rows, in time and bucket order.
func holdoutBucketRows(counters counterRows) ([]telemetry.ReadCacheHoldoutBucketRow, error) {
	var out []telemetry.ReadCacheHoldoutBucketRow
	perInterval := map[pcommon.Timestamp]int{}
	var failure error
	err := counters.each(holdoutBucketFamily, func(k counterKey, c *counterDraft) {
		bucket, err := strconv.Atoi(k.key)
		if err != nil || bucket < 0 || bucket >= telemetry.HoldoutBuckets {
			failure = cmp.Or(failure, fmt.Errorf("spindle.read_cache.bucket %s at %s: a bucket is 0 to %d", k.key, k.time, telemetry.HoldoutBuckets-1))
			return
		}
		perInterval[k.time]++
		out = append(out, telemetry.ReadCacheHoldoutBucketRow{Time: k.time.AsTime().UTC(), HashBucket: int16(bucket),
			IntervalSeconds: time.Duration(k.time - c.start).Seconds(),
			ManagedAccessed: c.values[0], ManagedMissed: c.values[1], ControlAccessed: c.values[2], ControlMissed: c.values[3]})
	})
	if err = cmp.Or(err, failure); err != nil {
		return nil, err
	}
	for at, n := range perInterval {
		if n != telemetry.HoldoutBuckets {
			return nil, fmt.Errorf("read_cache_holdout_bucket at %s has %d of the %d buckets: the agent sends every bucket of an interval together (docs/metrics.md)",
				at.AsTime().UTC(), n, telemetry.HoldoutBuckets)
		}
	}
	slices.SortFunc(out, func(a, b telemetry.ReadCacheHoldoutBucketRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.HashBucket, b.HashBucket))
	})
	return out, nil
}
