package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spindle-io/spindle/agent/internal/upgrade"
)

// upgradeWatchCommand is the watchdog an agent starts, from the copy of its own binary, to swap
// in a verified upgrade and bring the previous binary back if the new one does not come up
// healthy (internal/upgrade, watchdog.go). Not for people to run.
func upgradeWatchCommand(args []string, stderr io.Writer) error {
	fs := newFlags("upgrade-watch", stderr)
	statePath := fs.String("state", "", "the upgrade's state file, written by the agent that staged it")
	if err := parse(fs, args); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil)).With("component", "upgrade-watchdog")
	st, ok, err := upgrade.ReadState(*statePath)
	if err != nil {
		return err
	}
	if !ok {
		return errNoStagedUpgrade
	}
	restarter, err := upgrade.NewRestarter(st.Restart, st.Executable, st.ConfigPath)
	if err != nil {
		return err
	}
	// The watchdog ignores the hang-up of a closing terminal; SIGTERM rolls back and ends it.
	signal.Ignore(syscall.SIGHUP)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err = upgrade.Watch(ctx, *statePath, restarter, logger)
	return err
}
