package opamp

import (
	"context"
	"fmt"
	"log/slog"

	clienttypes "github.com/open-telemetry/opamp-go/client/types"
)

// logAdapter sends opamp-go's own log lines to the gateway's slog logger. Its errors are mostly
// agents going away mid-message, so they are logged at debug level; ours carry the context.
type logAdapter struct{ log *slog.Logger }

var _ clienttypes.Logger = (*logAdapter)(nil)

func (l *logAdapter) Debugf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "opamp: "+fmt.Sprintf(format, v...))
}

func (l *logAdapter) Errorf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "opamp: "+fmt.Sprintf(format, v...))
}
