package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// agent is one enrolled server as the load generator drives it.
type agent struct {
	Hostname   string
	ServerID   string
	Credential string
	Seq        int64 // the last sequence number sent
}

// enrollAgents creates an organisation and an enrolment token the way the console does (the
// token's SHA-256 in enrollment_tokens), then enrols n machines through the gateway's real
// POST /v1/enroll, as `spindle-agent enroll` would.
func enrollAgents(ctx context.Context, db *pgxpool.Pool, client *http.Client, gateway, runID string, n int) ([]*agent, error) {
	org := "ingest-bench-" + runID
	if _, err := db.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, org); err != nil {
		return nil, fmt.Errorf("create the benchmark organisation: %w", err)
	}
	random := make([]byte, 24)
	_, _ = rand.Read(random)
	token := "spe_" + base64.RawURLEncoding.EncodeToString(random)
	hash := sha256.Sum256([]byte(token))
	if _, err := db.Exec(ctx, `
		INSERT INTO enrollment_tokens (org_id, label, token_hash, token_hint, expires_at)
		VALUES ($1, 'ingest benchmark', $2, $3, $4)`, org, hash[:], token[len(token)-4:], time.Now().Add(time.Hour)); err != nil {
		return nil, fmt.Errorf("create the benchmark enrolment token: %w", err)
	}
	agents := make([]*agent, 0, n)
	for i := 0; i < n; i++ {
		hostname := fmt.Sprintf("bench-%s-%04d", runID, i)
		body, _ := json.Marshal(map[string]string{"token": token, "machineId": fmt.Sprintf("%x", sha256.Sum256([]byte(hostname)))[:32],
			"hostname": hostname, "os": "linux", "osVersion": "Debian 12", "kernel": "6.1.0", "arch": "amd64", "agentVersion": "bench"})
		var enrolled struct {
			ServerID   string `json:"serverId"`
			Credential string `json:"credential"`
			BatchHWM   int64  `json:"batchHwm"`
		}
		// Enrolment has its own small admission pool; a 429 is waited out as the agent would.
		for attempt := 0; ; attempt++ {
			resp, err := client.Post(gateway+"/v1/enroll", "application/json", bytes.NewReader(body))
			if err != nil {
				return nil, fmt.Errorf("enrol %s: %w", hostname, err)
			}
			if resp.StatusCode == http.StatusTooManyRequests && attempt < 50 {
				resp.Body.Close()
				time.Sleep(100 * time.Millisecond)
				continue
			}
			err = json.NewDecoder(resp.Body).Decode(&enrolled)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || err != nil {
				return nil, fmt.Errorf("enrol %s: HTTP %d (%v)", hostname, resp.StatusCode, err)
			}
			break
		}
		agents = append(agents, &agent{Hostname: hostname, ServerID: enrolled.ServerID, Credential: enrolled.Credential, Seq: enrolled.BatchHWM})
	}
	return agents, nil
}
