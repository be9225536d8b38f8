// Package enroll exchanges an enrolment token (spe_…, multi-use until it expires or is revoked) for the agent's own
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
	"math/rand/v2"
	"net/http"
	"strconv"
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
	// CurrentCredential, when this machine is already enrolled, proves to the gateway that the
	// re-enrolment comes from the machine itself (sent as Authorization, never in the body):
	// a token alone cannot take over an enrolled machine's identity.
	CurrentCredential string `json:"-"`
}

// Response is the gateway's answer.
type Response struct {
	AgentID    string `json:"agentId"`
	ServerID   string `json:"serverId"`
	OrgID      string `json:"orgId"`
	Credential string `json:"credential"`
	BatchHwm   uint64 `json:"batchHwm"`
	// ExpiresAt is when the credential stops working unless renewed; zero from a gateway that
	// does not say (the running agent then renews at its first start to learn it).
	ExpiresAt time.Time `json:"expiresAt"`
	// SigningPublicKey is the gateway's Ed25519 public key (PEM) that signs upgrades; empty from a
	// gateway that does not serve upgrades.
	SigningPublicKey string `json:"signingPublicKey"`
}

// busyBudget is how long enrolment keeps retrying a gateway that answers 429 or 503 (a fleet
// installing at once, a gateway restarting): Retry-After is honoured, at most busyWaitCap at a
// time, with up to a second of jitter so the servers of one rollout spread out.
const (
	busyBudget  = 3 * time.Minute
	busyWaitCap = 30 * time.Second
)

// sleep waits, or returns early when ctx ends (tests replace it).
var sleep = sleepFor

func sleepFor(ctx context.Context, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}

// Exchange posts the request and validates the answer, retrying while the gateway says it is busy.
func Exchange(ctx context.Context, client *http.Client, gateway string, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	url := strings.TrimRight(gateway, "/") + "/v1/enroll"
	var waited time.Duration
	for {
		status, data, retryAfter, err := post(ctx, client, url, gateway, req, body)
		if err != nil {
			return Response{}, err
		}
		busy := status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
		wait := retryAfter + time.Duration(rand.Int64N(int64(time.Second)))
		if !busy || waited+wait > busyBudget || ctx.Err() != nil {
			return answer(status, data, url, gateway)
		}
		sleep(ctx, wait)
		waited += wait
	}
}

// post sends the request once; retryAfter is the gateway's Retry-After (5 s when it gives none).
func post(ctx context.Context, client *http.Client, url, gateway string, req Request, body []byte) (status int, data []byte, retryAfter time.Duration, err error) {
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, 0, err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("User-Agent", "spindle-agent/"+req.AgentVersion)
	if req.CurrentCredential != "" {
		httpReq.Header.Set("Authorization", "Bearer "+req.CurrentCredential)
	}
	resp, err := client.Do(httpReq)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("cannot reach the gateway at %s (check --gateway and the network): %w", gateway, err)
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, 0, fmt.Errorf("read enrolment response: %w", err)
	}
	retryAfter = 5 * time.Second
	if seconds, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && seconds >= 0 {
		retryAfter = min(time.Duration(seconds)*time.Second, busyWaitCap)
	}
	return resp.StatusCode, data, retryAfter, nil
}

// answer turns the gateway's final answer into the response or an error saying what to do.
func answer(status int, data []byte, url, gateway string) (Response, error) {
	statusText := fmt.Sprintf("%d %s", status, http.StatusText(status))
	switch {
	case status == http.StatusOK:
	case status == http.StatusUnauthorized:
		return Response{}, fmt.Errorf("the enrolment token was refused (%s): it is unknown, expired or revoked; create a new one in the console under Add server", gatewayError(data, statusText))
	case status == http.StatusForbidden, status == http.StatusConflict:
		return Response{}, fmt.Errorf("the gateway refused to re-enrol this machine (%s)", gatewayError(data, statusText))
	case status == http.StatusBadRequest:
		return Response{}, fmt.Errorf("the gateway rejected the enrolment request (%s)", gatewayError(data, statusText))
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		return Response{}, fmt.Errorf("enrolment failed: %s stayed busy for %s (%s); try again later", url, busyBudget, gatewayError(data, statusText))
	default:
		return Response{}, fmt.Errorf("enrolment failed: %s answered %s; try again later", url, gatewayError(data, statusText))
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
	src := hostinfo.SourcesFor(cfg.StateDir, cfg.HostRoot)
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
	asked := time.Now()
	resp, err := Exchange(ctx, client, o.Gateway, Request{
		Token: o.Token, MachineID: host.MachineID, Hostname: host.Hostname, OS: host.OS,
		OSVersion: host.OSVersion, Kernel: host.Kernel, Arch: host.Arch, AgentVersion: o.AgentVersion,
		CurrentCredential: cfg.Credential,
	})
	if err != nil {
		return Result{}, err
	}

	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = o.Gateway, resp.Credential, resp.AgentID, resp.ServerID
	if resp.SigningPublicKey != "" {
		cfg.SigningPublicKey = resp.SigningPublicKey
	}
	// The issue time is the agent's own clock when it asked, as for a renewal, so the renewal
	// rule (a third of the lifetime left) never depends on the two clocks agreeing. A zero expiry
	// (an older gateway) makes the running agent renew at its first start to learn it.
	cfg.CredentialIssuedAt, cfg.CredentialExpiresAt = time.Time{}, resp.ExpiresAt
	if !resp.ExpiresAt.IsZero() {
		cfg.CredentialIssuedAt = asked
	}
	if err := spool.RaiseSequence(cfg.SequencePath(), resp.BatchHwm); err != nil {
		return Result{}, err
	}
	if err := config.Save(o.ConfigPath, cfg); err != nil {
		return Result{}, err
	}
	return Result{Response: resp, Host: host, Config: cfg}, nil
}
