//go:build spindle_broken_start

// A deliberately broken build of the agent for the upgrade rollback test
// (e2e/integration/agent-upgrade.test.ts builds "0.1.2" with -tags spindle_broken_start): `run`
// exits at once with status 1, as a release with a start-up bug would. Never part of a release:
// nothing else builds with this tag.

package main

import (
	"fmt"
	"os"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		fmt.Fprintln(os.Stderr, "spindle-agent: this build exits at start (spindle_broken_start)")
		os.Exit(1)
	}
}
