package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/spindle-io/spindle/apps/gateway/internal/pkgrepo"
)

// The repository's public key, at a stable URL: binary for apt's signed-by
// (/usr/share/keyrings), armoured for dnf's gpgkey and `gpg --show-keys`.
const (
	repoKeyringName = "spindle-archive-keyring.gpg"
	repoKeyArmored  = "spindle-archive-keyring.asc"
)

// handleApt is GET /apt/…: the apt repository of the agent's .deb packages (pkgrepo), its
// signed metadata under dists/stable/, the packages under pool/<version>/, and the public key.
// The same for every organisation: the packages are the public agent binaries, and nothing in
// the repository names a customer.
func (s *server) handleApt(w http.ResponseWriter, r *http.Request) {
	path := r.PathValue("path")
	if s.aptRepo == nil {
		writeError(w, http.StatusNotFound, reasonNotFound, "this gateway serves no package repository: it has no signing key (docs/configure.md, \"Signing key\")")
		return
	}
	switch path {
	case repoKeyringName:
		w.Header().Set("Content-Type", "application/pgp-keys")
		_, _ = w.Write(s.repoSigner.PublicKey())
		return
	case repoKeyArmored:
		w.Header().Set("Content-Type", "application/pgp-keys")
		_, _ = w.Write(s.repoSigner.ArmoredPublicKey())
		return
	}
	if s.releases == nil {
		writeError(w, http.StatusNotFound, reasonNotFound, "this gateway serves no agent packages: its operator must set SPINDLE_AGENT_DIST_DIR")
		return
	}
	index, err := s.aptRepo.Index(s.releases.Releases())
	if err != nil {
		writeError(w, http.StatusInternalServerError, reasonInternal, "could not build the apt repository: "+err.Error())
		return
	}
	if data, ok := index.Files[path]; ok {
		w.Header().Set("Cache-Control", "no-cache")
		if strings.HasSuffix(path, ".gz") {
			w.Header().Set("Content-Type", "application/gzip")
		} else {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		_, _ = w.Write(data)
		return
	}
	if f, ok := index.Pool[path]; ok {
		serveReleaseFile(w, r, f)
		return
	}
	writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("the apt repository has no %s; add it with the lines the console shows (Add server, Linux, \"From our package repository\")", path))
}

// newAptRepo derives the repositories' OpenPGP key (apt's and yum's), when the gateway has a
// signing key.
func newAptRepo(s *server) error {
	if s.signingKey.IsZero() {
		return nil
	}
	signer, err := pkgrepo.NewSigner(s.signingKey)
	if err != nil {
		return err
	}
	s.repoSigner, s.aptRepo, s.yumRepo = signer, pkgrepo.NewApt(signer), pkgrepo.NewYum(signer)
	return nil
}
