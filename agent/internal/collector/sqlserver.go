package collector

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/dbdetect"
	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// SQL Server publishes its statistics as performance counters, so reading them needs no SQL
// login. The counter objects are named SQLServer:<object> for the default instance and
// MSSQL$<name>:<object> for a named one. Raw values:
//   - SQL Statistics\Batch Requests/sec (PERF_COUNTER_BULK_COUNT): First is the cumulative count;
//   - Buffer Manager\Buffer cache hit ratio (PERF_LARGE_RAW_FRACTION): First / Second is the
//     ratio over the instance's recent page reads (SQL Server's own window, not since start);
//   - Buffer Manager\Page life expectancy (PERF_LARGE_RAWCOUNT): First, in seconds.
const defaultSQLServerInstance = "MSSQLSERVER"

func init() { register("sqlserver", runtime.GOOS == "windows", newSQLServerCollector) }

func sqlServerObject(instance, object string) string {
	if instance == defaultSQLServerInstance {
		return "SQLServer:" + object
	}
	return "MSSQL$" + instance + ":" + object
}

type sqlServerCounters struct{ batchRequests, hitRatio, lifeExpectancy pdh.Counter }

func sqlServerCountersOf(instance string) sqlServerCounters {
	return sqlServerCounters{
		batchRequests:  pdh.Counter{Object: sqlServerObject(instance, "SQL Statistics"), Name: "Batch Requests/sec"},
		hitRatio:       pdh.Counter{Object: sqlServerObject(instance, "Buffer Manager"), Name: "Buffer cache hit ratio"},
		lifeExpectancy: pdh.Counter{Object: sqlServerObject(instance, "Buffer Manager"), Name: "Page life expectancy"},
	}
}

func (c sqlServerCounters) specs() []pdh.Spec {
	return []pdh.Spec{{Counter: c.batchRequests}, {Counter: c.hitRatio}, {Counter: c.lifeExpectancy}}
}

// sqlServerSample is one instance's values of one snapshot.
type sqlServerSample struct {
	BatchRequests         uint64 // cumulative
	HitRatio              float64
	HitRatioKnown         bool // false while the instance has read no page yet (0 of 0)
	LifeExpectancySeconds int64
}

func sqlServerSampleFromPDH(s pdh.Snapshot, instance string) (sqlServerSample, error) {
	c := sqlServerCountersOf(instance)
	batches, ok1 := s.Get(c.batchRequests, pdh.NoInstance)
	ratio, ok2 := s.Get(c.hitRatio, pdh.NoInstance)
	life, ok3 := s.Get(c.lifeExpectancy, pdh.NoInstance)
	if !ok1 || !ok2 || !ok3 {
		return sqlServerSample{}, fmt.Errorf("sqlserver %s: counters missing from the snapshot", instance)
	}
	if batches.First < 0 || life.First < 0 || ratio.First < 0 || ratio.First > ratio.Second {
		return sqlServerSample{}, fmt.Errorf("sqlserver %s: implausible counters (batches %d, hits %d of %d, life %d)",
			instance, batches.First, ratio.First, ratio.Second, life.First)
	}
	out := sqlServerSample{BatchRequests: uint64(batches.First), LifeExpectancySeconds: life.First}
	if ratio.Second > 0 {
		out.HitRatio, out.HitRatioKnown = float64(ratio.First)/float64(ratio.Second), true
	}
	return out, nil
}

// sqlServerCollector reads every installed instance's counters each tick. Instances are listed
// afresh each tick (one installed later is picked up); an instance whose counters cannot be
// read (stopped, counters disabled) is reported in the error while the others are recorded.
type sqlServerCollector struct {
	instances func() ([]string, error)
	open      func([]pdh.Spec) (pdh.Query, error)

	queries map[string]pdh.Query
	prev    map[string]uint64 // batch requests at the previous tick
}

func newSQLServerCollector(Options) (Collector, error) {
	reg := dbdetect.HostRegistry()
	return &sqlServerCollector{
		instances: func() ([]string, error) {
			if reg == nil {
				return nil, fmt.Errorf("sqlserver: SQL Server runs on Windows only: %w", ErrUnsupported)
			}
			return dbdetect.SQLServerInstances(reg)
		},
		open: pdh.Open, queries: map[string]pdh.Query{}, prev: map[string]uint64{},
	}, nil
}

func (c *sqlServerCollector) Collect(_ context.Context, sink Sink) error {
	names, err := c.instances()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("sqlserver: no SQL Server instance installed: %w", ErrNoData)
	}
	c.forgetRemoved(names)
	var errs []error
	for _, name := range names {
		sample, err := c.read(name)
		if err != nil {
			errs = append(errs, err)
			delete(c.prev, name)
			continue
		}
		c.record(sink, name, sample)
	}
	return errors.Join(errs...)
}

func (c *sqlServerCollector) read(name string) (sqlServerSample, error) {
	q, ok := c.queries[name]
	if !ok {
		opened, err := c.open(sqlServerCountersOf(name).specs())
		if err != nil {
			return sqlServerSample{}, fmt.Errorf("sqlserver %s: %w (is the instance running?)", name, err)
		}
		q, c.queries[name] = opened, opened
	}
	s, err := q.Collect()
	if err != nil {
		_ = q.Close()
		delete(c.queries, name) // reopened next tick: the instance may have restarted
		return sqlServerSample{}, fmt.Errorf("sqlserver %s: %w", name, err)
	}
	return sqlServerSampleFromPDH(s, name)
}

// record sends the gauges every tick and the batch requests from the second tick on (the first
// only sets the baseline; a counter that went back means the instance restarted: re-baselined).
func (c *sqlServerCollector) record(sink Sink, name string, s sqlServerSample) {
	instance := attribute.String(catalogue.AttrSQLServerInstance, name)
	if s.HitRatioKnown {
		sink.SetFloat(catalogue.SQLServerBufferCacheHitRatio, s.HitRatio, instance)
	}
	sink.SetInt(catalogue.SQLServerPageLifeExpectancy, s.LifeExpectancySeconds, instance)
	if prev, ok := c.prev[name]; ok && s.BatchRequests >= prev {
		sink.AddInt(catalogue.SQLServerBatchRequests, int64(s.BatchRequests-prev), instance)
	}
	c.prev[name] = s.BatchRequests
}

func (c *sqlServerCollector) forgetRemoved(names []string) {
	for name, q := range c.queries {
		if !slices.Contains(names, name) {
			_ = q.Close()
			delete(c.queries, name)
			delete(c.prev, name)
		}
	}
}

func (c *sqlServerCollector) Close() error {
	var errs []error
	for name, q := range c.queries {
		errs = append(errs, q.Close())
		delete(c.queries, name)
	}
	return errors.Join(errs...)
}
