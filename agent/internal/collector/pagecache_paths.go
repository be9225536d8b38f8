package collector

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// filePaths names files known only by device and inode. The kernel has no inode-to-path
// lookup, so each way of finding a name is tried in turn (finders below): a process that holds
// the file open (/proc/*/fd), one that maps it (/proc/*/maps: libraries, executables, mmap'ed
// databases), and, on ext2/3/4, the kernel's own directory cache through open_by_handle_at
// (pagecache_handle_linux.go), which names files that short-lived processes read and closed.
// A name found is confirmed by stat: that device, that inode. A file none of them names is
// given its mount point and full inode number with what was tried (unnamedFile), which a user
// can search for: find <mount point> -xdev -inum <inode>.
//
// Cost is bounded: only the busiest files are asked for; a name found is kept and re-checked
// with one stat per tick; each scan runs at most once per tick, and a file no finder could name
// is looked for again only after retryTicks.
type filePaths struct {
	procPath string
	finders  []fileFinder
	mounts   func() mountTable
	tick     int
	known    map[pagecache.FileID]knownPath
	missing  map[pagecache.FileID]missingPath
}

// fileFinder is one way of naming files. find returns the names it found, confirmed, and may
// say for a file it could not name why not (otherwise its miss is the finder's own; "" adds
// nothing).
type fileFinder struct {
	miss string // what a miss means, in the user's words: "not open in any process"
	find func(want map[pagecache.FileID]bool, mounts mountTable) (found, why map[pagecache.FileID]string)
}

type knownPath struct {
	path     string
	lastUsed int
}

type missingPath struct {
	tick int    // of the last unsuccessful search
	name string // what the file is called meanwhile: its mount point, inode and what was tried
}

const (
	// retryTicks: a file no finder named is looked for again after this many ticks.
	retryTicks = 6
	// forgetTicks: a name not asked for in this many ticks is dropped, bounding the cache to
	// the files that were recently among the busiest.
	forgetTicks = 60
)

func newFilePaths(procPath string) *filePaths {
	if procPath == "" {
		procPath = "/proc"
	}
	p := &filePaths{procPath: procPath, known: map[pagecache.FileID]knownPath{}, missing: map[pagecache.FileID]missingPath{}}
	p.mounts = func() mountTable { return readMountTable(filepath.Join(procPath, "self", "mountinfo")) }
	p.finders = []fileFinder{
		{miss: "not open in any process", find: func(want map[pagecache.FileID]bool, _ mountTable) (map[pagecache.FileID]string, map[pagecache.FileID]string) {
			return p.scanDescriptors(want), nil
		}},
		{miss: "not memory-mapped by any process", find: func(want map[pagecache.FileID]bool, _ mountTable) (map[pagecache.FileID]string, map[pagecache.FileID]string) {
			return p.scanMaps(want), nil
		}},
		{miss: "no name in the kernel's directory cache", find: findByHandle},
	}
	return p
}

// resolve returns a name for every id: its path, or what unnamedFile says when no finder named it.
func (p *filePaths) resolve(ids []pagecache.FileID) map[pagecache.FileID]string {
	p.tick++
	names := make(map[pagecache.FileID]string, len(ids))
	want := map[pagecache.FileID]bool{}
	for _, id := range ids {
		if k, ok := p.known[id]; ok {
			if got, ok := statFileID(k.path); ok && got == id { // renamed, or the inode reused
				p.known[id] = knownPath{path: k.path, lastUsed: p.tick}
				names[id] = k.path
				continue
			}
			delete(p.known, id)
		}
		if m, tried := p.missing[id]; tried && p.tick-m.tick < retryTicks {
			names[id] = m.name
			continue
		}
		want[id] = true
	}
	if len(want) > 0 {
		mounts := p.mounts()
		tried := map[pagecache.FileID][]string{}
		for _, f := range p.finders {
			if len(want) == 0 {
				break
			}
			found, why := f.find(want, mounts)
			for id, path := range found {
				p.known[id] = knownPath{path: path, lastUsed: p.tick}
				names[id] = path
				delete(want, id)
				delete(p.missing, id)
			}
			for id := range want {
				reason := f.miss
				if w, ok := why[id]; ok {
					reason = w // "" when there is nothing to add
				}
				if reason != "" {
					tried[id] = append(tried[id], reason)
				}
			}
		}
		for id := range want {
			name := unnamedFile(id, mounts, tried[id])
			p.missing[id] = missingPath{tick: p.tick, name: name}
			names[id] = name
		}
	}
	p.forget()
	return names
}

// unnamedFile names a file no finder could name so that a user can still find it: the inode
// number in full, on the file system's mount point, and what was tried, e.g.
//
//	inode 1835021 on / (device 254:1): not open in any process, not memory-mapped by any process, no name in the kernel's directory cache
//
// It never starts with "/", so nothing takes it for a path (a policy pattern, a recommendation).
func unnamedFile(id pagecache.FileID, mounts mountTable, tried []string) string {
	major, minor := devMajorMinor(id.Dev)
	where := "a file system not mounted here"
	if m, ok := mounts[id.Dev]; ok {
		where = m.point
	}
	return "inode " + strconv.FormatUint(id.Ino, 10) + " on " + where + " (device " + strconv.FormatUint(uint64(major), 10) + ":" +
		strconv.FormatUint(uint64(minor), 10) + "): " + strings.Join(tried, ", ")
}

// scanDescriptors walks every process's open descriptors once, stopping when every wanted file
// is named. Processes that exit or deny access are skipped: what cannot be read is simply not found.
func (p *filePaths) scanDescriptors(want map[pagecache.FileID]bool) map[pagecache.FileID]string {
	found := map[pagecache.FileID]string{}
	for _, pid := range p.processes() {
		fdDir := filepath.Join(p.procPath, pid, "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link := filepath.Join(fdDir, fd.Name())
			id, ok := statFileID(link) // follows the link: the open file itself
			if !ok || !want[id] {
				continue
			}
			if _, done := found[id]; done {
				continue
			}
			if path, err := os.Readlink(link); err == nil && filepath.IsAbs(path) {
				found[id] = path
				if len(found) == len(want) {
					return found
				}
			}
		}
	}
	return found
}

// unnamed names id as unnamedFile does, for one reason found outside resolve.
func (p *filePaths) unnamed(id pagecache.FileID, reason string) string {
	return unnamedFile(id, p.mounts(), []string{reason})
}

// processes lists the pids under procPath.
func (p *filePaths) processes() []string {
	entries, err := os.ReadDir(p.procPath)
	if err != nil {
		return nil
	}
	pids := make([]string, 0, len(entries))
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func (p *filePaths) forget() {
	for id, k := range p.known {
		if p.tick-k.lastUsed >= forgetTicks {
			delete(p.known, id)
		}
	}
	for id, m := range p.missing {
		if p.tick-m.tick >= retryTicks {
			delete(p.missing, id)
		}
	}
}
