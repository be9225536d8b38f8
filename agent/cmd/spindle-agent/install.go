package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/spindle-io/spindle/agent/internal/enroll"
	"github.com/spindle-io/spindle/agent/internal/wininstall"
)

// installCommand is `spindle-agent install` (Windows): enrol, secure, register and start the
// service. The console's PowerShell one-liner and the MSI both end here.
func installCommand(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := newFlags("install", stdout)
	token := fs.String("token", "", "enrolment token from the console (spe_…); --token-file - reads it from standard input instead, off the command line")
	tokenFile := fs.String("token-file", "", `read the enrolment token from this file, or from standard input with "-"`)
	gateway := fs.String("gateway", "", "gateway URL, e.g. https://spindle.example.com:4318")
	allowHTTP := fs.Bool("allow-http", false, "accept an http:// gateway on another host (the token, credential and telemetry then travel unencrypted)")
	noStart := fs.Bool("no-start", false, "register the service without starting it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *tokenFile != "" {
		if *token != "" {
			return fmt.Errorf("%w: give the token once: --token or --token-file", errUsage)
		}
		read, err := readToken(*tokenFile, stdin)
		if err != nil {
			return err
		}
		*token = read
	}
	if *gateway != "" {
		if err := enroll.CheckTransport(context.Background(), net.DefaultResolver, *gateway, *allowHTTP); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the running agent's executable: %w", err)
	}
	return wininstall.Install(context.Background(), wininstall.Options{
		Token: *token, Gateway: *gateway, AgentVersion: version, Executable: exe, NoStart: *noStart, Out: stdout,
	})
}

// uninstallCommand is `spindle-agent uninstall` (Windows).
func uninstallCommand(args []string, stdout io.Writer) error {
	fs := newFlags("uninstall", stdout)
	if err := parse(fs, args); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the running agent's executable: %w", err)
	}
	return wininstall.Uninstall(wininstall.Options{Executable: exe, Out: stdout})
}
