package winservice

import (
	"context"
	"fmt"
	"log/slog"

	"golang.org/x/sys/windows/svc"
)

// RunService runs run under the service control manager: Running once started, and on Stop or
// Shutdown it cancels run's context and waits for it (the agent spools the current interval).
// When run fails on its own, the service stops with exit code 1, which the recovery actions
// (set on non-crash failures too) answer with a restart.
func RunService(run func(ctx context.Context, logger *slog.Logger) error, logger *slog.Logger) error {
	return svc.Run(Name, &handler{run: run, logger: logger})
}

type handler struct {
	run    func(ctx context.Context, logger *slog.Logger) error
	logger *slog.Logger
}

func (h *handler) Execute(_ []string, requests <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	status <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.run(ctx, h.logger) }()
	status <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown}
	for {
		select {
		case err := <-done:
			if err != nil {
				h.logger.Error("the agent stopped with an error; the service control manager restarts it", "err", err)
				return true, 1
			}
			return false, 0
		case req := <-requests:
			switch req.Cmd {
			case svc.Interrogate:
				status <- req.CurrentStatus
			case svc.Stop, svc.Shutdown:
				h.logger.Info(fmt.Sprintf("the service control manager asked the agent to stop (%d); spooling the current interval", req.Cmd))
				// The run loop spools the partial interval and drains for up to 5 s.
				status <- svc.Status{State: svc.StopPending, WaitHint: 15000}
				cancel()
				if err := <-done; err != nil {
					h.logger.Error("the agent stopped with an error", "err", err)
				}
				return false, 0
			}
		}
	}
}
