package benchrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

// errRunGone: the gateway no longer has this run in progress for us (404): stop it.
var errRunGone = errors.New("the gateway has no such run in progress for this agent")

// command is the gateway's answer to a poll (docs/agent-protocol.md, "Proof runs").
type command struct {
	Start *struct {
		RunID      string          `json:"runId"`
		Profile    string          `json:"profile"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"start"`
	Cancel string `json:"cancel"`
}

// profileInfo is what the console's form shows of a profile.
type profileInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
	Source      string `json:"source"`
	Steps       int    `json:"steps"` // load steps × workloads with the profile's own loads
}

type client struct {
	http       *http.Client
	gateway    string
	credential func() string // read per request: the credential is renewed while the agent runs
	userAgent  string
}

func (c *client) do(ctx context.Context, method, path string, body any, into any) (int, error) {
	var reader io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		reader = bytes.NewReader(encoded)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.gateway, "/")+path, reader)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.credential())
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	payload, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusNotFound && strings.HasPrefix(path, "/v1/bench/runs/"):
		return resp.StatusCode, errRunGone
	case resp.StatusCode >= 300:
		var problem struct{ Error string }
		_ = json.Unmarshal(payload, &problem)
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, problem.Error)
	case into != nil && resp.StatusCode == http.StatusOK:
		if err := json.Unmarshal(payload, into); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: unreadable answer: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

func (c *client) sendProfiles(ctx context.Context, profiles []bench.Profile, paths []string) error {
	infos := make([]profileInfo, 0, len(profiles))
	for _, p := range profiles {
		steps := len(p.Loads)
		if n := len(p.Mixes); n > 1 {
			steps *= n
		}
		infos = append(infos, profileInfo{Name: p.Name, Description: p.Description, Kind: string(p.Kind), Source: p.Source, Steps: steps})
	}
	if paths == nil {
		paths = []string{}
	}
	_, err := c.do(ctx, http.MethodPost, "/v1/bench/profiles", map[string]any{"profiles": infos, "paths": paths}, nil)
	return err
}

// next long-polls for work; running is the run in progress ("" for none).
func (c *client) next(ctx context.Context, running string, waitSeconds int) (command, error) {
	query := url.Values{"wait": {fmt.Sprint(waitSeconds)}}
	if running != "" {
		query.Set("running", running)
	}
	var cmd command
	_, err := c.do(ctx, http.MethodGet, "/v1/bench/next?"+query.Encode(), nil, &cmd)
	return cmd, err
}

func (c *client) progress(ctx context.Context, runID string, p bench.Progress) (cancel bool, err error) {
	var answer struct {
		Cancel bool `json:"cancel"`
	}
	_, err = c.do(ctx, http.MethodPost, "/v1/bench/runs/"+url.PathEscape(runID)+"/progress",
		map[string]any{"fraction": p.Fraction, "phase": phaseText(p)}, &answer)
	return answer.Cancel, err
}

func (c *client) finish(ctx context.Context, runID, status string, report *bench.Report, message string) error {
	body := map[string]any{"status": status}
	if report != nil { // a stopped run's report is partial (complete false): the console states no change
		body["report"] = report
	}
	if message != "" {
		body["error"] = truncate(message, 2000)
	}
	_, err := c.do(ctx, http.MethodPost, "/v1/bench/runs/"+url.PathEscape(runID)+"/finish", body, nil)
	return err
}

// phaseText is the progress as the console shows it beside the bar.
func phaseText(p bench.Progress) string {
	switch p.Phase {
	case bench.PhaseRunning:
		if p.Step == 0 {
			return truncate(p.Message, 200)
		}
		var text string
		switch {
		case p.WarmUp:
			text = fmt.Sprintf("warm-up pass (features %s, not compared)", p.Side)
		case p.Block > 0:
			text = fmt.Sprintf("block %d, pass %d of at least %d (features %s)", p.Block, p.Pass, p.Passes, p.Side)
		default:
			text = fmt.Sprintf("pass %d of %d (features %s)", p.Pass, p.Passes, p.Side)
		}
		text += fmt.Sprintf(", step %d of %d", p.Step, p.Steps)
		if p.StepLabel != "" {
			text += ": " + p.StepLabel
		}
		if p.TargetHalfWidthPercent > 0 {
			text += fmt.Sprintf(" · target ±%g %% within %.0f s", p.TargetHalfWidthPercent, p.TimeLimitSeconds)
			if p.WidestHalfWidthPercent != nil {
				text += fmt.Sprintf(", now ±%.1f %%", *p.WidestHalfWidthPercent)
			}
		}
		return truncate(text, 200)
	case "":
		return "starting"
	default:
		return truncate(string(p.Phase), 200)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
