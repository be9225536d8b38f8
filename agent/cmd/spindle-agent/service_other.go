//go:build !windows

package main

import (
	"fmt"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/winservice"
)

func runService(config.Config, string) error {
	return fmt.Errorf("%w: run --service: %v", errUsage, winservice.ErrUnsupported)
}
