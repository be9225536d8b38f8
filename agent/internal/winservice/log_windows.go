package winservice

import (
	"context"
	"log/slog"
	"strings"

	"golang.org/x/sys/windows/svc/eventlog"
)

// EventLogHandler is a slog.Handler writing each record at or above its level to the
// Application event log under the source Name (event id 1), as one line of text: what an
// operator sees in Event Viewer. Debug records never go there (the file has them).
type EventLogHandler struct {
	log   *eventlog.Log
	level slog.Level
	attrs []slog.Attr
}

// OpenEventLog opens the event log source Register installed.
func OpenEventLog(level slog.Level) (*EventLogHandler, error) {
	l, err := eventlog.Open(Name)
	if err != nil {
		return nil, err
	}
	if level < slog.LevelInfo {
		level = slog.LevelInfo
	}
	return &EventLogHandler{log: l, level: level}, nil
}

// Close releases the event log handle.
func (h *EventLogHandler) Close() error { return h.log.Close() }

func (h *EventLogHandler) Enabled(_ context.Context, level slog.Level) bool { return level >= h.level }

func (h *EventLogHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	switch {
	case r.Level >= slog.LevelError:
		return h.log.Error(1, b.String())
	case r.Level >= slog.LevelWarn:
		return h.log.Warning(1, b.String())
	default:
		return h.log.Info(1, b.String())
	}
}

func (h *EventLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

// WithGroup is flat: the event log shows one line per record.
func (h *EventLogHandler) WithGroup(string) slog.Handler { return h }
