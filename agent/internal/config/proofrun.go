package config

import (
	"fmt"
	"path/filepath"
)

// ProofRunConfig limits the proof runs the console may request on this server. Only an operator
// of the server (who edits agent.yaml) decides where they may write: a run whose directories are
// not inside one of Paths is refused, and without Paths every remote run is refused.
// `spindle-agent proof-run` on the command line is not limited by it. agent.yaml calls it
// proof_runs (bench before issue 28, still read).
type ProofRunConfig struct {
	// Paths are directories remote proof runs may create their (temporary) files in; the
	// console's request form offers exactly these.
	Paths []string `yaml:"paths,omitempty"`
}

func (b ProofRunConfig) validate() error {
	for _, p := range b.Paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) == "/" {
			return fmt.Errorf("proof_runs.paths: %q must be an absolute directory other than /", p)
		}
	}
	return nil
}
