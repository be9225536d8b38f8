package httpapi

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// handleReleaseDownload is GET /download/<version>/<file>: a release's binaries and packages, its
// SHA256SUMS and the gateway's Ed25519 signature over them (SHA256SUMS.sig), which an agent
// checks before an upgrade runs (docs/agent-protocol.md, "Upgrades").
func (s *server) handleReleaseDownload(w http.ResponseWriter, r *http.Request) {
	version, name := r.PathValue("version"), r.PathValue("name")
	if s.releases == nil || !releases.IsVersion(version) {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("there is no agent release %q on this gateway", version))
		return
	}
	release, ok := s.releases.Release(version)
	if !ok {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("this gateway serves no agent release %s; it serves %s", version, s.releaseList()))
		return
	}
	switch name {
	case checksumsName:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(release.Sums)
		return
	case signatureName:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(release.Signature)
		return
	}
	for _, f := range append(append([]releases.File{}, release.Binaries...), release.Packages...) {
		if f.Name == name {
			serveReleaseFile(w, r, f)
			return
		}
	}
	writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("release %s has no %s", version, name))
}

// serveReleaseFile serves a file the catalogue listed (by its own name: a request never names a path).
func serveReleaseFile(w http.ResponseWriter, r *http.Request, f releases.File) {
	file, err := os.Open(f.Path)
	if err != nil {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("%s is gone from the gateway's disk", f.Name))
		return
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("%s is gone from the gateway's disk", f.Name))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+f.Name+`"`)
	http.ServeContent(w, r, f.Name, info.ModTime(), file)
}

func (s *server) releaseList() string {
	var versions []string
	for _, r := range s.releases.Releases() {
		versions = append(versions, r.Version)
	}
	if len(versions) == 0 {
		return "none"
	}
	return strings.Join(versions, ", ")
}
