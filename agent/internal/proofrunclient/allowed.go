package proofrunclient

import (
	"fmt"
	"path/filepath"
	"strings"
)

// checkAllowed refuses a run naming a directory that is not one of the allowed ones or inside
// one. Both sides are resolved through symbolic links where they exist, so a link inside an
// allowed directory cannot lead the run elsewhere. The proof-run engine then checks again that
// every file it makes stays inside the requested directories.
func checkAllowed(requested, allowed []string) error {
	if len(allowed) == 0 {
		return fmt.Errorf("this agent accepts no proof runs from the console: list the directories they may use under proof_runs.paths in agent.yaml and restart the agent")
	}
	for _, path := range requested {
		resolved := resolve(path)
		ok := false
		for _, dir := range allowed {
			base := resolve(dir)
			if resolved == base || strings.HasPrefix(resolved, base+string(filepath.Separator)) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("directory %q is not one this agent allows for proof runs (proof_runs.paths in agent.yaml: %s)", path, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func resolve(path string) string {
	clean := filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(clean); err == nil {
		return real
	}
	return clean
}
