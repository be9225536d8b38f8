package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/enroll"
)

func enrollCommand(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := newFlags("enroll", stdout)
	token := fs.String("token", "", "enrolment token from the console (spe_…); prefer --token-file, as every local user can read a command line")
	tokenFile := fs.String("token-file", "", `read the enrolment token from this file, or from standard input with "-"`)
	gateway := fs.String("gateway", "", "gateway URL, e.g. https://spindle.example.com:4318")
	configPath := fs.String("config", config.DefaultPath, "path of agent.yaml (written with mode 0600)")
	stateDir := fs.String("state-dir", "", "state directory for the spool and status (default: the config's state_dir, else "+config.DefaultStateDir+")")
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
	if *token == "" || *gateway == "" {
		return fmt.Errorf("%w: enroll needs --token and --gateway (the console's Add server page shows both)", errUsage)
	}
	res, err := enroll.Enroll(context.Background(), enroll.Options{
		ConfigPath: *configPath, StateDir: *stateDir, Token: *token, Gateway: *gateway, AgentVersion: version,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Enrolled %s as server %s (agent %s).\n", res.Host.Hostname, res.Response.ServerID, res.Response.AgentID)
	fmt.Fprintf(stdout, "Config written to %s.\n", *configPath)
	if runtime.GOOS == "windows" {
		fmt.Fprintf(stdout, "Start the agent: Restart-Service SpindleAgent (after spindle-agent install), or spindle-agent run --config %s\n", *configPath)
	} else {
		fmt.Fprintf(stdout, "Start the agent: systemctl restart spindle-agent, or spindle-agent run --config %s\n", *configPath)
	}
	return nil
}

// readToken reads the first line of path ("-": stdin), so the token never has to be on the
// command line (/proc/PID/cmdline is world-readable).
func readToken(path string, stdin io.Reader) (string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("--token-file %s: %w", path, err)
	}
	token := strings.TrimSpace(line)
	if token == "" {
		return "", fmt.Errorf("%w: --token-file %s holds no token", errUsage, path)
	}
	return token, nil
}
