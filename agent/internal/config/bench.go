package config

import (
	"fmt"
	"path/filepath"
)

// BenchConfig limits the proof runs the console may request on this server. Only an operator
// of the server (who edits agent.yaml) decides where they may write: a run whose directories are
// not inside one of Paths is refused, and without Paths every remote run is refused.
// `spindle-agent bench` on the command line is not limited by it.
type BenchConfig struct {
	// Paths are directories remote proof runs may create their (temporary) files in; the
	// console's request form offers exactly these.
	Paths []string `yaml:"paths,omitempty"`
}

func (b BenchConfig) validate() error {
	for _, p := range b.Paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) == "/" {
			return fmt.Errorf("bench.paths: %q must be an absolute directory other than /", p)
		}
	}
	return nil
}
