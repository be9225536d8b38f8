//go:build !linux && !windows

package fragscan

import "context"

func runAtIdlePriority(func()) error { return ErrUnsupported }

func scanRoot(context.Context, string, Settings, *pacer) (Result, error) {
	return Result{}, ErrUnsupported
}
