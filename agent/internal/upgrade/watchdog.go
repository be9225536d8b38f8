package upgrade

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// WatchPoll is how often the watchdog looks at the new agent.
const WatchPoll = 250 * time.Millisecond

// Watch is `spindle-agent upgrade-watch`: it takes over a staged upgrade from the agent that
// verified it, swaps the binary, restarts the agent through r and waits for the new agent to
// write PhaseHealthy (after the gateway answered it). If the new agent exits first or the
// state's HealthTimeout passes, the previous binary goes back in place and is started, and the
// state says why (PhaseRolledBack), which that agent reports. It returns the final state.
func Watch(ctx context.Context, statePath string, r Restarter, log *slog.Logger) (State, error) {
	st, ok, err := ReadState(statePath)
	if err != nil {
		return State{}, err
	}
	if !ok || st.Phase != PhaseStaged {
		return st, fmt.Errorf("no staged upgrade in %s (phase %q): the watchdog is started by the agent", statePath, st.Phase)
	}
	finish := func(phase Phase, message string) (State, error) {
		st.Phase, st.Message, st.FinishedAt = phase, message, time.Now().UTC()
		if err := WriteState(statePath, st); err != nil {
			log.Error("could not record the upgrade's outcome", "phase", phase, "error", err)
			return st, err
		}
		return st, nil
	}
	log.Info("upgrade watchdog: replacing the agent", "from", st.From, "to", st.To, "executable", st.Executable, "restart", st.Restart.Method)

	if r.SwapWhileRunning() {
		if err := replaceFile(st.Staged, st.Executable); err != nil {
			return finish(PhaseFailed, fmt.Sprintf("could not replace %s: %v; %s keeps running", st.Executable, err, st.From))
		}
		if err := r.Stop(ctx); err != nil {
			restoreErr := replaceFile(st.Previous, st.Executable)
			return finish(PhaseFailed, fmt.Sprintf("could not stop the agent to restart it: %v; %s keeps running%s", err, st.From, restoreNote(restoreErr)))
		}
	} else {
		if err := r.Stop(ctx); err != nil {
			return finish(PhaseFailed, fmt.Sprintf("could not stop the agent to replace it: %v; %s keeps running", err, st.From))
		}
		if err := replaceFile(st.Staged, st.Executable); err != nil {
			startErr := r.Start(ctx)
			return finish(PhaseFailed, fmt.Sprintf("could not replace %s: %v; %s started again%s", st.Executable, err, st.From, restoreNote(startErr)))
		}
	}

	st.Phase, st.Deadline = PhaseRestarting, time.Now().Add(st.HealthTimeout).UTC()
	if err := WriteState(statePath, st); err != nil {
		return rollBack(ctx, statePath, st, r, log, fmt.Sprintf("could not record the restart: %v", err))
	}
	if err := r.Start(ctx); err != nil {
		return rollBack(ctx, statePath, st, r, log, fmt.Sprintf("%s did not start: %v", st.To, err))
	}
	log.Info("upgrade watchdog: new agent started; waiting for it to connect and report healthy", "to", st.To, "timeout", st.HealthTimeout.String())

	ticker := time.NewTicker(WatchPoll)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return rollBack(context.WithoutCancel(ctx), statePath, st, r, log, "the watchdog was stopped before the new agent reported healthy")
		case <-ticker.C:
		}
		current, ok, err := ReadState(statePath)
		if err == nil && ok && current.Phase == PhaseHealthy && current.OfferHash == st.OfferHash {
			log.Info("upgrade watchdog: the new agent is healthy; the previous binary is kept", "to", st.To, "previous", st.Previous)
			return finish(PhaseInstalled, "")
		}
		if exited, how := r.Exited(ctx); exited {
			return rollBack(ctx, statePath, st, r, log, fmt.Sprintf("%s stopped before it reported healthy (%s)", st.To, how))
		}
		if time.Now().After(st.Deadline) {
			return rollBack(ctx, statePath, st, r, log, fmt.Sprintf("%s did not connect and report healthy within %s", st.To, st.HealthTimeout))
		}
	}
}

// rollBack stops the new agent, puts the previous binary back, records why (before the previous
// agent starts, so it reads the reason at its start and reports it) and starts it.
func rollBack(ctx context.Context, statePath string, st State, r Restarter, log *slog.Logger, reason string) (State, error) {
	log.Warn("upgrade watchdog: rolling back", "to", st.From, "reason", reason)
	var errs []error
	if err := r.Stop(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop %s: %w", st.To, err))
	}
	if err := replaceFile(st.Previous, st.Executable); err != nil {
		errs = append(errs, fmt.Errorf("put %s back: %w", st.From, err))
	}
	st.Phase, st.Message, st.FinishedAt = PhaseRolledBack, reason, time.Now().UTC()
	if err := WriteState(statePath, st); err != nil {
		errs = append(errs, fmt.Errorf("record the rollback: %w", err))
	}
	if err := r.Start(ctx); err != nil {
		errs = append(errs, fmt.Errorf("start %s again: %w", st.From, err))
	}
	if err := errors.Join(errs...); err != nil {
		log.Error("upgrade watchdog: the rollback did not complete", "error", err)
		return st, err
	}
	log.Info("upgrade watchdog: the previous agent runs again", "version", st.From)
	return st, nil
}

func restoreNote(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(" (and putting it back failed too: %v)", err)
}
