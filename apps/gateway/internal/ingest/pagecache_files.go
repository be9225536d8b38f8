package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// maxTopFiles bounds what one interval can put in page_cache_top_files; the agent sends 10 by
// default and at most 50 (collectors.page_cache.top_files).
const maxTopFiles = 50

// newestTopFiles keeps the newest interval's page-cache top files of the batch (older intervals
// of the same batch are superseded: the table holds only the latest list), most accesses first.
func newestTopFiles(rows counterRows) (*telemetry.PageCacheTopFiles, error) {
	byTime := map[time.Time]*telemetry.PageCacheTopFiles{}
	var newest *telemetry.PageCacheTopFiles
	err := rows.each(pageCacheFileFamily, func(k counterKey, c *counterDraft) {
		at := k.time.AsTime().UTC()
		list := byTime[at]
		if list == nil {
			list = &telemetry.PageCacheTopFiles{Time: at, IntervalSeconds: time.Duration(k.time - c.start).Seconds()}
			byTime[at] = list
		}
		list.Files = append(list.Files, telemetry.PageCacheFile{Path: k.key, Accesses: c.values[0], Misses: c.values[1]})
		if newest == nil || at.After(newest.Time) {
			newest = list
		}
	})
	if err != nil || newest == nil {
		return nil, err
	}
	if len(newest.Files) > maxTopFiles {
		return nil, fmt.Errorf("page_cache_top_files at %s lists %d files; at most %d per interval (collectors.page_cache.top_files)", newest.Time, len(newest.Files), maxTopFiles)
	}
	for _, f := range newest.Files {
		switch {
		case f.Path == "":
			return nil, fmt.Errorf("page_cache_top_files at %s: a file has an empty file.path", newest.Time)
		case f.Accesses == 0:
			return nil, fmt.Errorf("page_cache_top_files at %s: %s has no accesses; the agent lists only files read in the interval (docs/metrics.md)", newest.Time, f.Path)
		case f.Misses > f.Accesses:
			return nil, fmt.Errorf("page_cache_top_files at %s: %s has %d misses for %d accesses; misses are at most the accesses (docs/metrics.md)", newest.Time, f.Path, f.Misses, f.Accesses)
		}
	}
	slices.SortFunc(newest.Files, func(a, b telemetry.PageCacheFile) int {
		return cmp.Or(cmp.Compare(b.Accesses, a.Accesses), cmp.Compare(a.Path, b.Path))
	})
	return newest, nil
}
