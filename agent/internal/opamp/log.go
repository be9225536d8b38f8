package opamp

import (
	"context"
	"fmt"
	"log/slog"

	clienttypes "github.com/open-telemetry/opamp-go/client/types"
)

// logAdapter routes opamp-go's log lines to the agent's logger at debug level: its errors are
// connection attempts while the gateway is away, which status and our own lines already report.
type logAdapter struct{ log *slog.Logger }

var _ clienttypes.Logger = (*logAdapter)(nil)

func (l *logAdapter) Debugf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "opamp: "+fmt.Sprintf(format, v...))
}

func (l *logAdapter) Errorf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "opamp: "+fmt.Sprintf(format, v...))
}
