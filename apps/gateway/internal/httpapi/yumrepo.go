package httpapi

import (
	"fmt"
	"net/http"
	"strings"
)

// handleYum is GET /yum/…: the yum/dnf repository of the agent's .rpm packages (pkgrepo), its
// metadata under repodata/ (repomd.xml with its detached signature repomd.xml.asc), the packages
// under packages/<version>/, and the armoured public key dnf's gpgkey names. Like /apt/, the
// same for every organisation: nothing in it names a customer.
func (s *server) handleYum(w http.ResponseWriter, r *http.Request) {
	path := r.PathValue("path")
	if s.yumRepo == nil {
		writeError(w, http.StatusNotFound, reasonNotFound, "this gateway serves no package repository: it has no signing key (docs/configure.md, \"Signing key\")")
		return
	}
	if path == repoKeyArmored {
		w.Header().Set("Content-Type", "application/pgp-keys")
		_, _ = w.Write(s.repoSigner.ArmoredPublicKey())
		return
	}
	if s.releases == nil {
		writeError(w, http.StatusNotFound, reasonNotFound, "this gateway serves no agent packages: its operator must set SPINDLE_AGENT_DIST_DIR")
		return
	}
	index, err := s.yumRepo.Index(s.releases.Releases())
	if err != nil {
		writeError(w, http.StatusInternalServerError, reasonInternal, "could not build the yum repository: "+err.Error())
		return
	}
	if data, ok := index.Files[path]; ok {
		w.Header().Set("Cache-Control", "no-cache")
		switch {
		case strings.HasSuffix(path, ".gz"):
			w.Header().Set("Content-Type", "application/gzip")
		case strings.HasSuffix(path, ".asc"):
			w.Header().Set("Content-Type", "application/pgp-signature")
		default:
			w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		}
		_, _ = w.Write(data)
		return
	}
	if f, ok := index.Pool[path]; ok {
		serveReleaseFile(w, r, f)
		return
	}
	writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("the yum repository has no %s; add it with the .repo file the console shows (Add server, Linux, \"From our package repository\")", path))
}
