package pkgrepo

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// The repositories' public key, at the same paths under each: binary for apt's signed-by
// (/usr/share/keyrings), armoured for dnf's gpgkey and `gpg --show-keys`.
const (
	KeyringName    = "spindle-archive-keyring.gpg"
	ArmoredKeyName = "spindle-archive-keyring.asc"
)

// ClientFile is a file a client fetches to add a repository (its key, its configuration): the
// same whatever the releases served, so it is served even when there are none.
type ClientFile struct {
	Data        []byte
	ContentType string
}

// Index is one build of a repository's metadata.
type Index struct {
	// Files are the signed metadata by path under the repository (apt: dists/stable/InRelease,
	// …/Packages.gz; yum: repodata/repomd.xml, repodata/<sha256>-primary.xml.gz, …).
	Files map[string][]byte
	// Pool maps a path under the repository (pool/<version>/<file>.deb,
	// packages/<version>/<file>.rpm) to the package file served there.
	Pool map[string]releases.File
	// Problems names the packages left out and why (a package that cannot be read).
	Problems []string
}

// MetadataContentType is the media type a metadata file of an Index is served with, by its name.
func MetadataContentType(path string) string {
	switch {
	case strings.HasSuffix(path, ".gz"):
		return "application/gzip"
	case strings.HasSuffix(path, ".asc"):
		return "application/pgp-signature"
	case strings.HasSuffix(path, ".xml"):
		return "text/xml; charset=utf-8"
	default:
		return "text/plain; charset=utf-8"
	}
}

// indexCache keeps the last Index built from one format's packages and builds another only when
// they change (a package added, removed or rewritten), so the signed metadata is not re-signed
// on every request.
type indexCache struct {
	format string // the releases.File format of the packages indexed: "deb", "rpm"
	build  func(served []releases.Release, now time.Time) (*Index, error)

	mu    sync.Mutex
	state string // the packages (name and SHA-256) the index was built from
	index *Index
}

// Index returns the metadata for these releases, from the cache while their packages are the same.
func (c *indexCache) Index(served []releases.Release) (*Index, error) {
	var state strings.Builder
	for _, r := range served {
		for _, f := range r.Packages {
			if f.Format == c.format {
				fmt.Fprintf(&state, "%s/%s %s\n", r.Version, f.Name, f.SHA256)
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != nil && c.state == state.String() {
		return c.index, nil
	}
	index, err := c.build(served, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	c.state, c.index = state.String(), index
	return index, nil
}

func newIndex() *Index { return &Index{Files: map[string][]byte{}, Pool: map[string]releases.File{}} }
