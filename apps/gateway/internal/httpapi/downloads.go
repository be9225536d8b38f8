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
// request from naming any other file (no slashes, no dots but .exe).
var agentBinaryName = regexp.MustCompile(`^spindle-agent-(linux|windows)-(amd64|arm64)(\.exe)?$`)

// handleDownload is GET /download/spindle-agent-<os>-<arch>.
func (s *server) handleDownload(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !agentBinaryName.MatchString(name) {
		writeError(w, http.StatusNotFound, reasonNotFound,
			fmt.Sprintf("there is no download named %q; agent binaries are named spindle-agent-<os>-<arch>, e.g. spindle-agent-linux-amd64", name))
		return
	}
	if s.agentDistDir == "" {
		writeError(w, http.StatusNotFound, reasonNotFound,
			"this gateway serves no agent binaries: its operator must set SPINDLE_AGENT_DIST_DIR")
		return
	}
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
