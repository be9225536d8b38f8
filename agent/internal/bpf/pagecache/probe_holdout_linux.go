package pagecache

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
)

// The read cache's control group (spindle_holdout.h): the draw and the read cache's thread in
// one config entry, the managed files in holdout_files. One goroutine at a time (the read cache
// samples from one); the programs read the config at every event.

// SetHoldout writes the draw; the read cache's thread stays as set.
func (p *Probe) SetHoldout(draw HoldoutDraw) error {
	p.holdoutMu.Lock()
	defer p.holdoutMu.Unlock()
	p.holdout.Salt, p.holdout.Threshold, p.holdout.GroupShift = draw.Salt, draw.Threshold, draw.GroupShift
	return p.writeHoldoutConfig()
}

// SetCacheThread names the thread (its TID) whose page-cache additions are the read cache's
// own; 0 names none.
func (p *Probe) SetCacheThread(tid uint32) error {
	p.holdoutMu.Lock()
	defer p.holdoutMu.Unlock()
	p.holdout.CacheTid = tid
	return p.writeHoldoutConfig()
}

func (p *Probe) writeHoldoutConfig() error {
	if err := p.objs.HoldoutConfig.Update(uint32(0), p.holdout, ebpf.UpdateAny); err != nil {
		return fmt.Errorf("write the read cache's control-group draw: %w", err)
	}
	return nil
}

func holdoutKey(id FileID) pagecacheHoldoutFile {
	return pagecacheHoldoutFile{Dev: kernelDev(id.Dev), Ino: id.Ino}
}

// TrackHoldoutFiles makes ids the files counted by group: new ones start from zero, files no
// longer listed are dropped.
func (p *Probe) TrackHoldoutFiles(ids []FileID) error {
	if len(ids) > MaxHoldoutFiles {
		return fmt.Errorf("the read cache manages %d files; its control group is counted for at most %d", len(ids), MaxHoldoutFiles)
	}
	p.holdoutMu.Lock()
	defer p.holdoutMu.Unlock()
	want := make(map[pagecacheHoldoutFile]bool, len(ids))
	for _, id := range ids {
		want[holdoutKey(id)] = true
	}
	var stale []pagecacheHoldoutFile
	var key pagecacheHoldoutFile
	var value pagecacheHoldoutCounts
	entries := p.objs.HoldoutFiles.Iterate()
	for entries.Next(&key, &value) {
		if !want[key] {
			stale = append(stale, key)
		}
		delete(want, key)
	}
	if err := entries.Err(); err != nil {
		return fmt.Errorf("read the read cache's counted files: %w", err)
	}
	for _, k := range stale {
		if err := p.objs.HoldoutFiles.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("stop counting a file for the read cache: %w", err)
		}
	}
	zero := pagecacheHoldoutCounts{}
	for k := range want {
		if err := p.objs.HoldoutFiles.Update(k, zero, ebpf.UpdateNoExist); err != nil && !errors.Is(err, ebpf.ErrKeyExist) {
			return fmt.Errorf("count a file for the read cache: %w", err)
		}
	}
	return nil
}

// ReadHoldout returns the counts of the listed files the program holds, cumulative since each
// was listed. The whole map is read in batches (a few system calls for thousands of files),
// one lookup per file only where batches are refused.
func (p *Probe) ReadHoldout(ids []FileID) (map[FileID]HoldoutCounts, error) {
	want := make(map[pagecacheHoldoutFile]FileID, len(ids))
	for _, id := range ids {
		want[holdoutKey(id)] = id
	}
	out := make(map[FileID]HoldoutCounts, len(ids))
	put := func(key pagecacheHoldoutFile, value pagecacheHoldoutCounts) {
		if id, ok := want[key]; ok {
			out[id] = holdoutCounts(value)
		}
	}
	if err := p.readHoldoutInBatches(put); err == nil {
		return out, nil
	}
	clear(out)
	var value pagecacheHoldoutCounts
	for key := range want {
		err := p.objs.HoldoutFiles.Lookup(key, &value)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the read cache's group counts: %w", err)
		}
		put(key, value)
	}
	return out, nil
}

func (p *Probe) readHoldoutInBatches(put func(pagecacheHoldoutFile, pagecacheHoldoutCounts)) error {
	keys := make([]pagecacheHoldoutFile, fileBatch)
	values := make([]pagecacheHoldoutCounts, fileBatch)
	var cursor ebpf.MapBatchCursor
	for {
		n, err := p.objs.HoldoutFiles.BatchLookup(&cursor, keys, values, nil)
		for i := range n {
			put(keys[i], values[i])
		}
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func holdoutCounts(v pagecacheHoldoutCounts) HoldoutCounts {
	return HoldoutCounts{
		Managed:  Counts{Read: v.Managed[eventRead], Faulted: v.Managed[eventFaulted], Added: v.Managed[eventAdded], Dirtied: v.Managed[eventDirtied]},
		Control:  Counts{Read: v.Control[eventRead], Faulted: v.Control[eventFaulted], Added: v.Control[eventAdded], Dirtied: v.Control[eventDirtied]},
		OwnAdded: v.OwnAdded, OwnHits: v.OwnHits,
	}
}

// ReadHoldoutBuckets returns both groups' counts per hash bucket of page groups, cumulative since
// Load and summed over CPUs (spindle_holdout.h holdout_buckets).
func (p *Probe) ReadHoldoutBuckets() ([HoldoutBuckets]HoldoutBucket, error) {
	var out [HoldoutBuckets]HoldoutBucket
	var perCPU []pagecacheHoldoutBucketCounts
	for bucket := range uint32(HoldoutBuckets) {
		if err := p.objs.HoldoutBuckets.Lookup(bucket, &perCPU); err != nil {
			return out, fmt.Errorf("read the read cache's counts per bucket: %w", err)
		}
		for _, c := range perCPU {
			out[bucket].Managed = addEventCounts(out[bucket].Managed, c.Managed)
			out[bucket].Control = addEventCounts(out[bucket].Control, c.Control)
		}
	}
	return out, nil
}

func addEventCounts(c Counts, n [4]uint64) Counts {
	return Counts{Read: c.Read + n[eventRead], Faulted: c.Faulted + n[eventFaulted], Added: c.Added + n[eventAdded], Dirtied: c.Dirtied + n[eventDirtied]}
}
