// Command spindle-agent samples this server's storage I/O and memory and ships it to a
// Spindle gateway. See agent/README.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "0.1.0-dev"

const usage = `spindle-agent: storage I/O telemetry for Spindle

Usage:
  spindle-agent enroll --token-file <file or -> --gateway <url> [--config PATH]
  spindle-agent run    [--config PATH]
  spindle-agent status [--config PATH] [--json]
  spindle-agent proof-run --profile sqlio|fileserver|oltp|pgbench --path DIR [--path LOGDIR]
                       [--size 1GiB] [--duration 5m] [--step 5s] [--ab] [--direct] [--json]
                       [--arms off,cache,oracle --oracle CGROUP_DIR] (pgbench: arms interleaved)
                       (an A/B proof run; "bench" is its old name)
  spindle-agent install   --token-file <file or -> --gateway <url> [--no-start]   (Windows)
  spindle-agent uninstall                                                       (Windows)
  spindle-agent version

The config defaults to /etc/spindle/agent.yaml (Windows: %ProgramData%\Spindle\agent.yaml);
state lives in /var/lib/spindle (Windows: %ProgramData%\Spindle\state).
`

// errUsage marks mistakes on the command line (exit code 2).
var errUsage = errors.New("usage")

// errNoStagedUpgrade: upgrade-watch was started without an upgrade to watch.
var errNoStagedUpgrade = fmt.Errorf("%w: upgrade-watch takes over an upgrade the running agent staged (--state); there is none", errUsage)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = runCommand(args[1:], stderr)
	case "enroll":
		err = enrollCommand(args[1:], os.Stdin, stdout)
	case "install":
		err = installCommand(args[1:], os.Stdin, stdout)
	case "uninstall":
		err = uninstallCommand(args[1:], stdout)
	case "status":
		err = statusCommand(args[1:], stdout)
	case "proof-run", "bench": // bench: the command's name before issue 28
		err = proofRunCommand(args[1:], stdout, stderr)
	case "upgrade-watch":
		err = upgradeWatchCommand(args[1:], stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "spindle-agent %s\n", version)
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "spindle-agent: %v\n\n%s", err, usage)
		return 2
	case errors.Is(err, errUnhealthy):
		return 1 // the summary already said why
	default:
		fmt.Fprintf(stderr, "spindle-agent: %v\n", err)
		return 1
	}
}

// newFlags builds a command's flag set whose parse errors are usage errors.
func newFlags(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("spindle-agent "+name, flag.ContinueOnError)
	fs.SetOutput(out)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}
