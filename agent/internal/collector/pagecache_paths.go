package collector

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// filePaths names files known only by device and inode. The kernel has no inode-to-path
// lookup, but the files that matter (database files, logs) are held open, so /proc/*/fd names
// them: readlink gives the path and stat confirms it is that device and inode.
//
// Cost is bounded: only the busiest files are asked for; a name found is kept and re-checked
// with one stat per tick; the descriptor scan runs at most once per tick, and a file it could
// not name is looked for again only after retryTicks.
type filePaths struct {
	procPath string
	tick     int
	known    map[pagecache.FileID]knownPath
	missing  map[pagecache.FileID]int // tick of the last unsuccessful scan
}

type knownPath struct {
	path     string
	lastUsed int
}

const (
	// retryTicks: a file no process holds open is looked for again after this many ticks.
	retryTicks = 6
	// forgetTicks: a name not asked for in this many ticks is dropped, bounding the cache to
	// the files that were recently among the busiest.
	forgetTicks = 60
)

func newFilePaths(procPath string) *filePaths {
	if procPath == "" {
		procPath = "/proc"
	}
	return &filePaths{procPath: procPath, known: map[pagecache.FileID]knownPath{}, missing: map[pagecache.FileID]int{}}
}

// resolve returns a name for every id: its path, or inode:<dev>:<ino> when no open descriptor
// names it.
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
		if last, tried := p.missing[id]; tried && p.tick-last < retryTicks {
			continue
		}
		want[id] = true
	}
	if len(want) > 0 {
		for id, path := range p.scan(want) {
			p.known[id] = knownPath{path: path, lastUsed: p.tick}
			names[id] = path
			delete(want, id)
			delete(p.missing, id)
		}
		for id := range want {
			p.missing[id] = p.tick
		}
	}
	for _, id := range ids {
		if _, ok := names[id]; !ok {
			names[id] = id.String()
		}
	}
	p.forget()
	return names
}

// scan walks every process's open descriptors once, stopping when every wanted file is named.
// Processes that exit or deny access are skipped: what cannot be read is simply not found.
func (p *filePaths) scan(want map[pagecache.FileID]bool) map[pagecache.FileID]string {
	found := map[pagecache.FileID]string{}
	procs, err := os.ReadDir(p.procPath)
	if err != nil {
		return found
	}
	for _, proc := range procs {
		if _, err := strconv.Atoi(proc.Name()); err != nil {
			continue
		}
		fdDir := filepath.Join(p.procPath, proc.Name(), "fd")
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

func (p *filePaths) forget() {
	for id, k := range p.known {
		if p.tick-k.lastUsed >= forgetTicks {
			delete(p.known, id)
		}
	}
	for id, last := range p.missing {
		if p.tick-last >= retryTicks {
			delete(p.missing, id)
		}
	}
}
