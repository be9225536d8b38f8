package httpapi

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// agentBinaryName is the only shape a download may have; matching it first is what keeps a
// request from naming any other file (no slashes, no dots but a Windows file's .exe or .msi).
// The Windows agent comes as the bare executable (the PowerShell one-liner) and as an MSI.
var agentBinaryName = regexp.MustCompile(`^spindle-agent-(linux-(amd64|arm64)|windows-(amd64|arm64)\.(exe|msi))$`)

// checksumsName is the file of SHA-256 sums of every binary served, in sha256sum's format
// ("<hex>  <name>"), which install.sh checks a download against before running it;
// signatureName is the gateway's raw Ed25519 signature over it, which install.sh checks first
// against the public key it carries.
// p256SignatureName is the ECDSA P-256 signature over the same sums (IEEE P1363 r||s, 64
// bytes), which the Windows one-liner checks with .NET against the key the console pins in it.
const (
	checksumsName     = "SHA256SUMS"
	signatureName     = "SHA256SUMS.sig"
	p256SignatureName = "SHA256SUMS.p256.sig"
)

// handleDownload is GET /download/spindle-agent-linux-<arch>, spindle-agent-windows-<arch>.exe
// and .msi, GET /download/SHA256SUMS, GET /download/SHA256SUMS.sig (Ed25519) and
// GET /download/SHA256SUMS.p256.sig (ECDSA P-256).
func (s *server) handleDownload(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if name == checksumsName || name == signatureName || name == p256SignatureName {
		s.serveChecksums(w, name)
		return
	}
	if !agentBinaryName.MatchString(name) {
		writeError(w, http.StatusNotFound, reasonNotFound,
			fmt.Sprintf("there is no download named %q; agent downloads are named spindle-agent-linux-<arch>, spindle-agent-windows-<arch>.exe or .msi, e.g. spindle-agent-linux-amd64", name))
		return
	}
	if s.agentDistDir == "" {
		writeError(w, http.StatusNotFound, reasonNotFound,
			"this gateway serves no agent binaries: its operator must set SPINDLE_AGENT_DIST_DIR")
		return
	}
	// A download holds a file and a connection for as long as the client reads: bounded.
	release, ok := s.gates.downloads.acquire(r.Context())
	if !ok {
		writeOverloaded(w)
		return
	}
	defer release()
	file, err := os.Open(filepath.Join(s.agentDistDir, name))
	if err != nil {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("this gateway has no %s; it has: %s", name, s.availableBinaries()))
		return
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("this gateway has no %s; it has: %s", name, s.availableBinaries()))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	http.ServeContent(w, r, name, info.ModTime(), file)
}

// serveChecksums serves the sums or one of their signatures, from the cache while the binaries
// are unchanged (checksums.go).
func (s *server) serveChecksums(w http.ResponseWriter, name string) {
	if s.agentDistDir == "" {
		writeError(w, http.StatusNotFound, reasonNotFound,
			"this gateway serves no agent binaries: its operator must set SPINDLE_AGENT_DIST_DIR")
		return
	}
	signed, err := s.checksums.current(s.agentDistDir, s.signingKey)
	if err != nil {
		writeError(w, http.StatusInternalServerError, reasonInternal, "could not hash the agent binaries: "+err.Error())
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	switch name {
	case signatureName:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(signed.ed25519)
	case p256SignatureName:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(signed.p256)
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(signed.sums)
	}
}

func (s *server) availableBinaries() string {
	entries, err := os.ReadDir(s.agentDistDir)
	if err != nil {
		return "none"
	}
	var names []string
	for _, entry := range entries {
		if entry.Type().IsRegular() && agentBinaryName.MatchString(entry.Name()) {
			names = append(names, entry.Name())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
