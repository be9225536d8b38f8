// Package releases is what agent versions the gateway serves, from SPINDLE_AGENT_DIST_DIR
// (docs/configure.md, SPINDLE_AGENT_DIST_DIR; docs/install.md, "Upgrades"): the release at the top of the directory (its version in
// the VERSION file agent/build-dist.sh writes; what install.sh installs) and one sub-directory per
// other release, named by its version. Each release's binaries have their SHA-256 in a
// SHA256SUMS signed with the gateway's Ed25519 key, the scheme install.sh checks, which upgrades
// over OpAMP use too.
package releases

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

// BinaryName is the shape of an agent binary's file name (the same as /download/ serves).
var BinaryName = regexp.MustCompile(`^spindle-agent-(linux|windows)-(amd64|arm64)(\.exe|\.msi)?$`)

// packageName is a .deb or .rpm of the agent, as agent/packaging/build-packages.sh names them.
var packageName = regexp.MustCompile(`^spindle-agent[_-][0-9A-Za-z.~+_-]+\.(deb|rpm)$`)

// VersionFile names the top release's version.
const VersionFile = "VERSION"

// File is one file of a release.
type File struct {
	Name   string
	Path   string
	OS     string // binaries: linux, windows
	Arch   string // binaries: amd64, arm64
	Format string // "" for a binary, deb or rpm for a package
	SHA256 string
	Size   int64
}

// Release is one version the gateway serves.
type Release struct {
	Version  string
	Dir      string
	Binaries []File // sorted by name; an .msi is listed but never offered to a running agent
	Packages []File
	// Sums is SHA256SUMS of the binaries; Signature the gateway's Ed25519 signature over it.
	Sums, Signature []byte
}

// Binary finds the executable for an OS and architecture (not the MSI).
func (r Release) Binary(goos, arch string) (File, bool) {
	for _, f := range r.Binaries {
		if f.OS == goos && f.Arch == arch && !strings.HasSuffix(f.Name, ".msi") {
			return f, true
		}
	}
	return File{}, false
}

// Catalogue keeps the releases of a distribution directory, rescanned on Refresh; a file is
// hashed again only when its size, modification time or identity changed.
type Catalogue struct {
	dir string
	key signing.Key

	mu       sync.RWMutex
	releases map[string]Release
	hashes   map[string]hashed
	scanned  time.Time
}

type hashed struct {
	size    int64
	modTime time.Time
	id      fileID
	sum     string
}

// New makes an empty catalogue of dir; Refresh fills it.
func New(dir string, key signing.Key) *Catalogue {
	return &Catalogue{dir: dir, key: key, releases: map[string]Release{}, hashes: map[string]hashed{}}
}

// Refresh rescans the directory. A release that cannot be read is left out, and the error says
// which and why; the others are kept.
func (c *Catalogue) Refresh() error {
	if c.dir == "" {
		return nil
	}
	found := map[string]Release{}
	var problems []string
	if data, err := os.ReadFile(filepath.Join(c.dir, VersionFile)); err == nil {
		version := strings.TrimSpace(string(data))
		if !IsVersion(version) {
			problems = append(problems, fmt.Sprintf("%s holds %q, not a version such as 1.2.3", filepath.Join(c.dir, VersionFile), version))
		} else if r, err := c.scan(version, c.dir); err != nil {
			problems = append(problems, err.Error())
		} else {
			found[version] = r
		}
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("read the agent distribution directory: %w", err)
	}
	for _, entry := range entries {
		if !entry.IsDir() || !IsVersion(entry.Name()) {
			continue
		}
		if _, ok := found[entry.Name()]; ok {
			problems = append(problems, fmt.Sprintf("release %s is both the top of %s and a sub-directory; the top one is served", entry.Name(), c.dir))
			continue
		}
		r, err := c.scan(entry.Name(), filepath.Join(c.dir, entry.Name()))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if len(r.Binaries) > 0 || len(r.Packages) > 0 {
			found[entry.Name()] = r
		}
	}
	c.mu.Lock()
	c.releases, c.scanned = found, time.Now()
	c.mu.Unlock()
	if len(problems) > 0 {
		return fmt.Errorf("agent releases: %s", strings.Join(problems, "; "))
	}
	return nil
}

func (c *Catalogue) scan(version, dir string) (Release, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Release{}, fmt.Errorf("release %s: %w", version, err)
	}
	r := Release{Version: version, Dir: dir}
	var sums bytes.Buffer
	for _, entry := range entries { // ReadDir sorts by name
		if !entry.Type().IsRegular() {
			continue
		}
		name := entry.Name()
		binary := BinaryName.FindStringSubmatch(name)
		pkg := packageName.FindStringSubmatch(name)
		if binary == nil && pkg == nil {
			continue
		}
		path := filepath.Join(dir, name)
		sum, size, err := c.sumOf(path)
		if err != nil {
			return Release{}, fmt.Errorf("release %s: %s: %w", version, name, err)
		}
		f := File{Name: name, Path: path, SHA256: sum, Size: size}
		if binary != nil {
			f.OS, f.Arch = binary[1], binary[2]
			r.Binaries = append(r.Binaries, f)
			fmt.Fprintf(&sums, "%s  %s\n", sum, name)
		} else {
			f.Format = pkg[1]
			r.Packages = append(r.Packages, f)
		}
	}
	r.Sums = sums.Bytes()
	if !c.key.IsZero() {
		r.Signature = c.key.Sign(r.Sums)
	}
	return r, nil
}

// sumOf hashes the file through the descriptor it stat'ed, unless it is unchanged since the last scan.
func (c *Catalogue) sumOf(path string) (string, int64, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return "", 0, err
	}
	id := identity(info)
	c.mu.RLock()
	cached, ok := c.hashes[path]
	c.mu.RUnlock()
	if ok && cached.size == info.Size() && cached.modTime.Equal(info.ModTime()) && cached.id == id {
		return cached.sum, info.Size(), nil
	}
	hash := sha256.New()
	if _, err := io.Copy(hash, file); err != nil {
		return "", 0, err
	}
	sum := hex.EncodeToString(hash.Sum(nil))
	c.mu.Lock()
	c.hashes[path] = hashed{size: info.Size(), modTime: info.ModTime(), id: id, sum: sum}
	c.mu.Unlock()
	return sum, info.Size(), nil
}

// Run refreshes the catalogue every interval and hands what it serves to record (the database's
// agent_releases, which the console lists), logging what cannot be read, until ctx ends.
func (c *Catalogue) Run(ctx context.Context, every time.Duration, record func(context.Context, []Release) error, log *slog.Logger) {
	for {
		if err := c.Refresh(); err != nil {
			log.Warn("some agent releases cannot be served", "error", err)
		}
		if c.dir != "" {
			recordCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
			if err := record(recordCtx, c.Releases()); err != nil {
				log.Warn("could not record the agent releases served; the console lists them once it can", "error", err)
			}
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// Release returns one release.
func (c *Catalogue) Release(version string) (Release, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.releases[version]
	return r, ok
}

// Releases returns every release, newest first.
func (c *Catalogue) Releases() []Release {
	c.mu.RLock()
	out := make([]Release, 0, len(c.releases))
	for _, r := range c.releases {
		out = append(out, r)
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b Release) int { return Compare(b.Version, a.Version) })
	return out
}
