package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/enroll"
)

func enrollCommand(args []string, stdout io.Writer) error {
	fs := newFlags("enroll", stdout)
	token := fs.String("token", "", "enrolment token from the console (spe_…)")
	gateway := fs.String("gateway", "", "gateway URL, e.g. https://spindle.example.com:4318")
	configPath := fs.String("config", config.DefaultPath, "path of agent.yaml (written with mode 0600)")
	stateDir := fs.String("state-dir", "", "state directory for the spool and status (default: the config's state_dir, else "+config.DefaultStateDir+")")
	if err := parse(fs, args); err != nil {
		return err
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
	fmt.Fprintf(stdout, "Start the agent: systemctl restart spindle-agent, or spindle-agent run --config %s\n", *configPath)
	return nil
}
