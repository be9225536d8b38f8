// Package enroll exchanges a one-time enrolment token (spe_…) for the agent's own
// credential at POST <gateway>/v1/enroll (docs/agent-protocol.md) and records the result in
// the config and the state directory.
package enroll

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// Request is the enrolment request body.
type Request struct {
	Token        string `json:"token"`
	MachineID    string `json:"machineId"`
	Hostname     string `json:"hostname"`
	OS           string `json:"os"`
	OSVersion    string `json:"osVersion"`
	Kernel       string `json:"kernel"`
	Arch         string `json:"arch"`
	AgentVersion string `json:"agentVersion"`
}

// Response is the gateway's answer.
type Response struct {
	AgentID    string `json:"agentId"`
	ServerID   string `json:"serverId"`
	OrgID      string `json:"orgId"`
	Credential string `json:"credential"`
	BatchHwm   uint64 `json:"batchHwm"`
}

// Exchange posts the request and validates the answer.
func Exchange(ctx context.Context, client *http.Client, gateway string, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	url := strings.TrimRight(gateway, "/") + "/v1/enroll"
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("User-Agent", "spindle-agent/"+req.AgentVersion)
	resp, err := client.Do(httpReq)
	if err != nil {
		return Response{}, fmt.Errorf("cannot reach the gateway at %s (check --gateway and the network): %w", gateway, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Response{}, fmt.Errorf("read enrolment response: %w", err)
	}

	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusUnauthorized:
		return Response{}, fmt.Errorf("the enrolment token was refused (%s): it is unknown, expired or revoked; create a new one in the console under Add server", gatewayError(data, resp.Status))
	case resp.StatusCode == http.StatusBadRequest:
		return Response{}, fmt.Errorf("the gateway rejected the enrolment request (%s)", gatewayError(data, resp.Status))
	default:
		return Response{}, fmt.Errorf("enrolment failed: %s answered %s; try again later", url, gatewayError(data, resp.Status))
	}

	var out Response
	if err := json.Unmarshal(data, &out); err != nil {
		return Response{}, fmt.Errorf("enrolment response is not the expected JSON (is %s a Spindle gateway?): %w", gateway, err)
	}
	var missing []string
	for name, v := range map[string]string{"agentId": out.AgentID, "serverId": out.ServerID, "credential": out.Credential} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return Response{}, fmt.Errorf("enrolment response lacks %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func gatewayError(body []byte, status string) string {
	var e struct{ Error, Reason string }
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return fmt.Sprintf("%s: %s", e.Reason, e.Error)
	}
	return status
}

// Options are the inputs of Enroll.
type Options struct {
	ConfigPath   string
	StateDir     string // empty: keep the config's state_dir (or the default)
	Token        string
	Gateway      string
	AgentVersion string
	Sources      *hostinfo.Sources // nil: the standard files for the config's state_dir
	Client       *http.Client      // nil: 30 s timeout
}

// Result reports what enrolment did.
type Result struct {
	Response Response
	Host     hostinfo.Info
	Config   config.Config
}

// Enroll identifies the host, exchanges the token, writes the config (0600, atomically,
// keeping any other settings already in it) and makes the batch sequence continue above the
// gateway's high-water mark.
func Enroll(ctx context.Context, o Options) (Result, error) {
	if !strings.HasPrefix(o.Token, "spe_") {
		return Result{}, errors.New("--token must be an enrolment token from the console (it starts with spe_)")
	}
	if err := config.ValidateGatewayURL(o.Gateway); err != nil {
		return Result{}, err
	}
	cfg, err := config.Load(o.ConfigPath)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return Result{}, err
		}
		cfg = config.Default()
	}
	if o.StateDir != "" {
		cfg.StateDir = o.StateDir
	}
	src := hostinfo.DefaultSources(cfg.StateDir)
	if o.Sources != nil {
		src = *o.Sources
	}
	host, err := hostinfo.Collect(src)
	if err != nil {
		return Result{}, err
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := Exchange(ctx, client, o.Gateway, Request{
		Token: o.Token, MachineID: host.MachineID, Hostname: host.Hostname, OS: host.OS,
		OSVersion: host.OSVersion, Kernel: host.Kernel, Arch: host.Arch, AgentVersion: o.AgentVersion,
	})
	if err != nil {
		return Result{}, err
	}

	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = o.Gateway, resp.Credential, resp.AgentID, resp.ServerID
	if err := spool.RaiseSequence(cfg.SequencePath(), resp.BatchHwm); err != nil {
		return Result{}, err
	}
	if err := config.Save(o.ConfigPath, cfg); err != nil {
		return Result{}, err
	}
	return Result{Response: resp, Host: host, Config: cfg}, nil
}
