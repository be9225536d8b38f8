package enroll

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
)

// Renewed is the gateway's answer to POST /v1/renew.
type Renewed struct {
	Credential string    `json:"credential"`
	ExpiresAt  time.Time `json:"expiresAt"`
	// SigningPublicKey is kept when the agent has none yet (enrolled before upgrades existed);
	// a different one is ignored: the key learnt at enrolment stays pinned.
	SigningPublicKey string `json:"signingPublicKey"`
	// IssuedAt is when this agent asked for it (the agent's clock), saved with the expiry so the
	// running agent knows the lifetime and renews when a third of it is left.
	IssuedAt time.Time `json:"-"`
}

// Renew exchanges the configured credential for a fresh one of full lifetime and saves it in
// the config (0600, atomically) before returning, so the agent never runs on a credential the
// gateway has already replaced. Credentials expire (90 days by default); the running agent
// calls Renew when a third of the lifetime is left (agent/internal/agent/renew.go).
func Renew(ctx context.Context, client *http.Client, configPath string) (Renewed, error) {
	cfg, err := config.Load(configPath)
	if err != nil {
		return Renewed{}, err
	}
	if err := cfg.RequireEnrolled(configPath); err != nil {
		return Renewed{}, err
	}
	url := strings.TrimRight(cfg.Gateway, "/") + "/v1/renew"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return Renewed{}, err
	}
	req.Header.Set("Authorization", "Bearer "+cfg.Credential)
	issuedAt := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return Renewed{}, fmt.Errorf("renew the agent credential: cannot reach %s: %w", cfg.Gateway, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Renewed{}, fmt.Errorf("read renewal response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Renewed{}, fmt.Errorf("the gateway refused to renew the agent credential (%s); if it was revoked or expired, "+
			"an admin must allow re-enrolment on the server's page and the agent be enrolled again", gatewayError(data, resp.Status))
	}
	var out Renewed
	if err := json.Unmarshal(data, &out); err != nil || !strings.HasPrefix(out.Credential, "spa_") || out.ExpiresAt.IsZero() {
		return Renewed{}, fmt.Errorf("renewal response is not the expected JSON {credential, expiresAt} (err %v)", err)
	}
	out.IssuedAt = issuedAt
	cfg.Credential, cfg.CredentialIssuedAt, cfg.CredentialExpiresAt = out.Credential, out.IssuedAt, out.ExpiresAt
	if cfg.SigningPublicKey == "" {
		cfg.SigningPublicKey = out.SigningPublicKey
	}
	if err := config.Save(configPath, cfg); err != nil {
		return Renewed{}, fmt.Errorf("the gateway issued a new credential but it could not be saved (%w); "+
			"the agent must be re-enrolled after an admin allows it", err)
	}
	return out, nil
}
