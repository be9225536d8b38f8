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
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// agent is one enrolled server as the load generator drives it.
type agent struct {
	Hostname   string
	ServerID   string
	Credential string
	Seq        int64          // the last sequence number sent
	template   *batchTemplate // its batches, encoded once (one sender owns an agent)
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
	// Eight enrolments at once: a fleet of thousands enrols in a minute instead of many.
	agents := make([]*agent, n)
	errs := make(chan error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				a, err := enrollOne(client, gateway, token, fmt.Sprintf("bench-%s-%05d", runID, i))
				if err != nil {
					errs <- err
					continue
				}
				agents[i] = a
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil && len(errs) == 0; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return agents, nil
}

// enrollOne enrols one machine as `spindle-agent enroll` would.
func enrollOne(client *http.Client, gateway, token, hostname string) (*agent, error) {
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
		if resp.StatusCode == http.StatusTooManyRequests && attempt < 600 {
			resp.Body.Close()
			time.Sleep(100 * time.Millisecond)
			continue
		}
		err = json.NewDecoder(resp.Body).Decode(&enrolled)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			return nil, fmt.Errorf("enrol %s: HTTP %d (%v)", hostname, resp.StatusCode, err)
		}
		return &agent{Hostname: hostname, ServerID: enrolled.ServerID, Credential: enrolled.Credential, Seq: enrolled.BatchHWM}, nil
	}
}
