//go:build !windows

package main

import (
	"bytes"
	"strings"
	"testing"
)

// On Linux, install, uninstall and run --service say what to use instead, and change nothing.
func TestWindowsCommandsOnLinuxPointToInstallSh(t *testing.T) {
	for _, args := range [][]string{
		{"install", "--token", "spe_x", "--gateway", "https://gw.example.com"},
		{"uninstall"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "install.sh") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
