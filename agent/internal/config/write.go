package config

import (
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/spindle-io/spindle/agent/internal/atomicfile"
)

const header = "# Spindle agent configuration, written by `spindle-agent enroll`.\n" +
	"# It holds this agent's credential: keep it mode 0600. Reference: agent/README.md.\n"

// Save validates cfg and writes it atomically with mode 0600 (it holds the credential). With
// enrolment_file set only the enrolment fields are written, to that file, and path is left as it is.
func Save(path string, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("refusing to write an invalid config: %w", err)
	}
	if cfg.EnrolmentFile != "" {
		return saveEnrolment(cfg)
	}
	body, err := yaml.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	return atomicfile.Write(path, append([]byte(header), body...), 0o600)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
