package httpapi

import (
	"fmt"
	"net/http"

	"github.com/spindle-io/spindle/apps/gateway/internal/pkgrepo"
	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

// packageRepository is what one package format's repository (pkgrepo) provides for the gateway
// to serve it under /<name>/: the files a client fetches to add it, and the signed metadata and
// package files built from the releases served. Another format is one more implementation and
// one more entry in newPackageRepositories.
type packageRepository interface {
	ClientFiles() map[string]pkgrepo.ClientFile
	Index(served []releases.Release) (*pkgrepo.Index, error)
}

// newPackageRepositories makes the repositories by name, signed with the OpenPGP key derived
// from the gateway's signing key (the same for every format).
func newPackageRepositories(key signing.Key, publicURL string) (map[string]packageRepository, error) {
	signer, err := pkgrepo.NewSigner(key)
	if err != nil {
		return nil, err
	}
	return map[string]packageRepository{"apt": pkgrepo.NewApt(signer), "yum": pkgrepo.NewYum(signer, publicURL)}, nil
}

// handlePackageRepository is GET /<name>/…: the named repository of the agent's packages
// (pkgrepo): its key and client configuration, its signed metadata (apt: dists/stable/; yum:
// repodata/) and its packages (apt: pool/<version>/; yum: packages/<version>/). The same for
// every organisation: the packages are the public agent binaries, and nothing in a repository
// names a customer.
func (s *server) handlePackageRepository(name string, repo packageRepository) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path := r.PathValue("path")
		if f, ok := repo.ClientFiles()[path]; ok {
			w.Header().Set("Content-Type", f.ContentType)
			_, _ = w.Write(f.Data)
			return
		}
		if s.releases == nil {
			writeError(w, http.StatusNotFound, reasonNotFound, "this gateway serves no agent packages: its operator must set SPINDLE_AGENT_DIST_DIR")
			return
		}
		index, err := repo.Index(s.releases.Releases())
		if err != nil {
			writeError(w, http.StatusInternalServerError, reasonInternal, fmt.Sprintf("could not build the %s repository: %v", name, err))
			return
		}
		if data, ok := index.Files[path]; ok {
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("Content-Type", pkgrepo.MetadataContentType(path))
			_, _ = w.Write(data)
			return
		}
		if f, ok := index.Pool[path]; ok {
			serveReleaseFile(w, r, f)
			return
		}
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("the %s repository has no %s; add it with the lines the console shows (Add server, Linux, \"From our package repository\")", name, path))
	}
}
