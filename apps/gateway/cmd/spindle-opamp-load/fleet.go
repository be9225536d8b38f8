package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// fleet is the organisation the run creates and the servers enrolled in it.
type fleet struct {
	orgID   string
	servers []enrolledServer
}

type enrolledServer struct {
	serverID, secret string
}

// enrolFleet creates a fresh organisation (or uses orgID when given) and an enrolment token, and enrols n machines through
// store.Enroll, the transaction behind POST /v1/enroll (the HTTP endpoint's per-address rate
// limit and small admission pool are for real machines, not for one process enrolling 10,000).
func enrolFleet(ctx context.Context, admin *pgxpool.Pool, st *store.Store, orgID string, n int) (*fleet, error) {
	f := &fleet{orgID: orgID}
	if orgID == "" {
		f.orgID = fmt.Sprintf("opamp-load-%d", time.Now().Unix())
		if _, err := admin.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, f.orgID); err != nil {
			return nil, fmt.Errorf("create the load organisation: %w", err)
		}
	}
	random := make([]byte, 24)
	_, _ = rand.Read(random)
	token := "spe_" + base64.RawURLEncoding.EncodeToString(random)
	tokenHash := sha256.Sum256([]byte(token))
	if _, err := admin.Exec(ctx, `INSERT INTO enrollment_tokens (org_id, label, token_hash, token_hint, expires_at)
		VALUES ($1, 'spindle-opamp-load', $2, $3, now() + interval '1 day')`, f.orgID, tokenHash[:], token[len(token)-4:]); err != nil {
		return nil, fmt.Errorf("create the enrolment token: %w", err)
	}
	f.servers = make([]enrolledServer, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				e, err := st.Enroll(ctx, store.Enrollment{TokenHash: tokenHash[:], MachineID: fmt.Sprintf("%s-%05d", f.orgID, i),
					Hostname: fmt.Sprintf("load-%05d", i), OS: "linux", Arch: "amd64", AgentVersion: "load"})
				if err != nil {
					errs[i] = fmt.Errorf("enrol machine %d: %w", i, err)
					continue
				}
				f.servers[i] = enrolledServer{serverID: e.ServerID, secret: e.Credential}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return f, errors.Join(errs...)
}

// policy is the document of the run's i-th policy change: the same for the whole fleet, as a
// change of the organisation-wide policy makes it.
func (f *fleet) policy(i int) string {
	return fmt.Sprintf(`{"schemaVersion":1,"telemetry":{"intervalSeconds":%d}}`, 10+i)
}

func (f *fleet) hash(i int) string {
	sum := sha256.Sum256([]byte(f.policy(i)))
	return hex.EncodeToString(sum[:])
}

// setPolicy writes the i-th policy as every server's effective policy in one transaction, as
// the worker's recompute of an organisation does, and returns the database clock just before
// the commit: the moment the save takes effect.
func (f *fleet) setPolicy(ctx context.Context, admin *pgxpool.Pool, i int) error {
	_, err := f.commitPolicy(ctx, admin, i)
	return err
}

func (f *fleet) commitPolicy(ctx context.Context, admin *pgxpool.Pool, i int) (time.Time, error) {
	tx, err := admin.Begin(ctx)
	if err != nil {
		return time.Time{}, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `
		INSERT INTO server_effective_policies (org_id, server_id, document, hash)
		SELECT org_id, id, $2::jsonb, $3 FROM servers WHERE org_id = $1
		ON CONFLICT (server_id) DO UPDATE SET document = EXCLUDED.document, hash = EXCLUDED.hash, computed_at = now()`,
		f.orgID, f.policy(i), f.hash(i)); err != nil {
		return time.Time{}, fmt.Errorf("save policy %d: %w", i, err)
	}
	var savedAt time.Time
	if err := tx.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&savedAt); err != nil {
		return time.Time{}, err
	}
	return savedAt, tx.Commit(ctx)
}

// waitApplied polls until n servers report hash APPLIED.
func (f *fleet) waitApplied(ctx context.Context, admin *pgxpool.Pool, hash string, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var applied int
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM server_policy_status
			WHERE org_id = $1 AND applied_hash = $2 AND status = 'applied'`, f.orgID, hash).Scan(&applied); err != nil {
			return err
		}
		if applied >= n {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("only %d of %d servers applied policy %s within %s", applied, n, hash[:12], limit)
		}
		time.Sleep(visibilityPoll)
	}
}

type changeResult struct {
	n             int
	p50, p99, max time.Duration // applied_at − save: when the gateway received each APPLIED
	// When a reader of the database (the console) could first see each APPLIED row: the commit
	// time of the row's transaction (track_commit_timestamp), or else the first poll that
	// counted half, 99 % and all of them (statement start, every visibilityPoll).
	visible50, visible99, visibleAll time.Duration
	visibleBasis                     string
	// CPU seconds used from the save until every row was visible (the database's from after the
	// save's commit, so the worker's upsert is not counted); -1 not measured.
	gatewayCPU, databaseCPU float64
	agentsCPU               float64 // this tool: the simulated agents (and the ingest senders), which share the host's cores
}

// visibilityPoll is how often the rows are counted while a change spreads. The count reads
// 10,000 rows (about 10 ms of a busy database), so it is kept rare enough not to slow what it
// measures; with commit timestamps it only detects the end.
const visibilityPoll = 250 * time.Millisecond

// timeChange saves the i-th policy and measures, per server, applied_at − save, and when the
// confirmations became visible to a reader.
func (f *fleet) timeChange(ctx context.Context, admin *pgxpool.Pool, cpu cpuMeter, i, n int) (changeResult, error) {
	var commitTimes string
	_ = admin.QueryRow(ctx, `SHOW track_commit_timestamp`).Scan(&commitTimes)
	gateway0, _ := cpu.read()
	agents0 := cpu.self()
	savedAt, err := f.commitPolicy(ctx, admin, i)
	if err != nil {
		return changeResult{}, err
	}
	_, database0 := cpu.read() // after the save's own upsert of every effective policy
	r := changeResult{visible50: -1, visible99: -1, visibleBasis: fmt.Sprintf("first %s poll to count them", visibilityPoll)}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var at time.Time
		var applied int
		if err := admin.QueryRow(ctx, `SELECT statement_timestamp(), count(*) FROM server_policy_status
			WHERE org_id = $1 AND applied_hash = $2 AND status = 'applied'`, f.orgID, f.hash(i)).Scan(&at, &applied); err != nil {
			return changeResult{}, err
		}
		if r.visible50 < 0 && applied*2 >= n {
			r.visible50 = at.Sub(savedAt)
		}
		if r.visible99 < 0 && applied*100 >= n*99 {
			r.visible99 = at.Sub(savedAt)
		}
		if applied >= n {
			r.visibleAll = at.Sub(savedAt)
			gateway1, database1 := cpu.read()
			r.gatewayCPU, r.databaseCPU = cpuDelta(gateway0, gateway1), cpuDelta(database0, database1)
			r.agentsCPU = cpuDelta(agents0, cpu.self())
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return changeResult{}, fmt.Errorf("only %d of %d servers applied policy %s within 2 minutes", applied, n, f.hash(i)[:12])
		}
		time.Sleep(visibilityPoll)
	}
	appliedAt, err := f.latencies(ctx, admin, `applied_at`, i, savedAt)
	if err != nil {
		return changeResult{}, err
	}
	r.n, r.p50, r.p99, r.max = len(appliedAt), quantile(appliedAt, 0.50), quantile(appliedAt, 0.99), appliedAt[len(appliedAt)-1]
	if commitTimes == "on" {
		// A row written again later (a late pending mark) shows its later commit: this errs slow.
		visible, err := f.latencies(ctx, admin, `pg_xact_commit_timestamp(xmin)`, i, savedAt)
		if err != nil {
			return changeResult{}, err
		}
		r.visible50, r.visible99, r.visibleAll = quantile(visible, 0.50), quantile(visible, 0.99), visible[len(visible)-1]
		r.visibleBasis = "commit time of each row"
	}
	logf("change %d: %d servers APPLIED, applied_at p50 %s p99 %s max %s; visible (%s) p50 %s p99 %s all %s",
		i, r.n, r.p50, r.p99, r.max, r.visibleBasis, r.visible50, r.visible99, r.visibleAll)
	return r, nil
}

// latencies reads column − save for every server that applied the i-th policy, sorted.
func (f *fleet) latencies(ctx context.Context, admin *pgxpool.Pool, column string, i int, savedAt time.Time) ([]time.Duration, error) {
	rows, err := admin.Query(ctx, `SELECT extract(epoch FROM `+column+` - $3)::float8 FROM server_policy_status
		WHERE org_id = $1 AND applied_hash = $2`, f.orgID, f.hash(i), savedAt)
	if err != nil {
		return nil, err
	}
	latencies, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (time.Duration, error) {
		var seconds float64
		err := row.Scan(&seconds)
		return time.Duration(seconds * float64(time.Second)), err
	})
	if err != nil {
		return nil, err
	}
	if len(latencies) == 0 {
		return nil, fmt.Errorf("no server applied policy %s", f.hash(i)[:12])
	}
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	return latencies, nil
}

func cpuDelta(before, after float64) float64 {
	if before < 0 || after < 0 {
		return -1
	}
	return after - before
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
