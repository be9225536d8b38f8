package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// Member is one validated export request of a group: an authenticated agent and its batches.
type Member struct {
	Agent   Agent
	Batches []telemetry.Batch
}

// Outcome is what happened to one member: its result, or the error it alone gets (an unknown,
// revoked or expired credential, or batches the database refused).
type Outcome struct {
	Result WriteResult
	Err    error
}

// WriteGroup writes the requests of several agents of one organisation in one transaction: one
// lock statement for their agent rows, one INSERT or COPY per table for all their rows, one statement
// advancing every mark, one touching every server, one queueing their rollups. Each member stays all or nothing and exactly
// once for its agent: members of one agent are taken in order against the mark as it rises, a
// member whose credential fails the check under the lock writes nothing and does not stop the
// others, and when the database refuses the group's data (a constraint, a value out of range)
// each member is written again alone, so only the member that caused it fails.
//
// The error is for the whole group (the database is down, the context ended): no member was
// written and every member should be told so.
func (s *Store) WriteGroup(ctx context.Context, members []Member) ([]Outcome, error) {
	if len(members) == 0 {
		return nil, nil
	}
	org := members[0].Agent.OrgID
	for _, m := range members {
		if m.Agent.OrgID != org {
			// Row-level security scopes a transaction to one organisation.
			return nil, fmt.Errorf("a write group spans organisations %s and %s", org, m.Agent.OrgID)
		}
	}
	outcomes, err := s.writeGroup(ctx, members)
	if err == nil || len(members) == 1 || IsUnavailable(err) || ctx.Err() != nil {
		return outcomes, err
	}
	// The database refused something in the group: find whose by writing each alone.
	outcomes = make([]Outcome, len(members))
	for i, m := range members {
		alone, err := s.writeGroup(ctx, []Member{m})
		if err != nil {
			if IsUnavailable(err) || ctx.Err() != nil {
				return nil, err
			}
			outcomes[i] = Outcome{Err: err}
			continue
		}
		outcomes[i] = alone[0]
	}
	return outcomes, nil
}

// agentMark is an agent row as locked by the group, with its mark as it rises.
type agentMark struct {
	credentialHash   []byte
	hwm              int64
	revoked, expired bool
	advanced         bool
}

// refusal re-checks a credential under the agent row's lock: one rotated, revoked or expired
// since authentication (or since a gateway cached it, see Credentials) writes nothing. A nil mark
// is an agent row that is gone.
func (mark *agentMark) refusal(agent Agent) error {
	switch {
	case mark == nil || !bytes.Equal(mark.credentialHash, agent.CredentialHash):
		return ErrUnknownCredential
	case mark.revoked:
		return ErrRevokedCredential
	case mark.expired:
		return ErrExpiredCredential
	}
	return nil
}

// querier is what the group's statements need of its connection: the group runs on a bare
// *pgx.Conn (its BEGIN and COMMIT travel in pipelines), other callers hold a pgx.Tx.
type querier interface {
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

var _, _ querier = (*pgx.Conn)(nil), pgx.Tx(nil)

// writeGroup runs the group's transaction in three round trips when its members carry only
// interval rows (as agents' exports do) and no table has copyAtRows rows: BEGIN, the
// organisation and the agent locks in one pipeline; every row, mark, last-seen and rollup-queue
// entry in a second; COMMIT. A large table's rows go by COPY between the first two. On a busy
// host each round trip waits for the scheduler twice (database, gateway), which is what bounded
// group commit before (docs/benchmarks.md, "Ingest end to end against raw COPY").
func (s *Store) writeGroup(ctx context.Context, members []Member) (outcomes []Outcome, err error) {
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin telemetry transaction: %w", err)
	}
	// A connection left inside a transaction (an error below before the ROLLBACK got through)
	// is closed by Release rather than reused.
	defer pooled.Release()
	conn := pooled.Conn()
	defer func() {
		if err != nil {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	marks, err := beginAndLockAgents(ctx, conn, members)
	if err != nil {
		return nil, err
	}

	outcomes = make([]Outcome, len(members))
	set := newCopySet()
	written := make([][]telemetry.Batch, len(members))
	hosts := map[string]telemetry.HostInfo{} // per server, newest request last
	var touched []Agent
	for i, m := range members {
		mark := marks[m.Agent.ID]
		if err := mark.refusal(m.Agent); err != nil {
			outcomes[i].Err = err
			continue
		}
		result := WriteResult{PreviousHWM: mark.hwm}
		written[i], result.DuplicateBatches, result.BatchHWM = splitAtMark(m.Batches, mark.hwm)
		result.WrittenBatches = len(written[i])
		for _, b := range written[i] {
			addIntervalRows(set, m.Agent, b)
			result.DiskIORows += len(b.DiskIO)
			result.MemoryRows += len(b.Memory)
			result.DeepRows += deepRowCount(b)
		}
		if result.WrittenBatches > 0 {
			mark.hwm, mark.advanced = result.BatchHWM, true
		}
		outcomes[i].Result = result
		if _, seen := hosts[m.Agent.ServerID]; !seen {
			touched = append(touched, m.Agent)
		}
		hosts[m.Agent.ServerID] = mergeHost(hosts[m.Agent.ServerID], newestHost(m.Batches))
	}

	types, err := s.columnTypes(ctx, conn, set.writtenTables())
	if err != nil {
		return nil, err
	}
	if err = set.copyLarge(ctx, conn, types); err != nil {
		return nil, err
	}
	// State (scans, lists, capabilities, curves) reads before it writes: its own round trips,
	// only for the members that carry any.
	for i, m := range members {
		if len(written[i]) > 0 {
			if err = writeDeepState(ctx, conn, m.Agent, written[i]); err != nil {
				return nil, err
			}
			curves, err := writeMissRatioCurves(ctx, conn, m.Agent, written[i])
			if err != nil {
				return nil, err
			}
			outcomes[i].Result.DeepRows += curves
		}
	}
	closing := &pgx.Batch{}
	var queued []string // what each statement is, for the error of the one that failed
	set.queueInserts(closing, &queued, types)
	set.queueRollupRanges(closing, &queued)
	if queueAdvanceMarks(closing, marks) {
		queued = append(queued, "advance batch high-water marks")
	}
	if queueTouchServers(closing, touched, hosts) {
		queued = append(queued, "mark servers seen")
	}
	if err = runPipeline(ctx, conn, closing, queued); err != nil {
		return nil, err
	}
	// COMMIT waits for the pipeline's answer rather than riding in it: a pipelined COMMIT is
	// executed by the server even after the gateway lost the connection (it is already in the
	// server's buffer), so a group answered 503 could stay written. Sent alone, a lost
	// connection before it rolls the group back.
	if _, err = conn.Exec(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("commit telemetry: %w", err)
	}
	return outcomes, nil
}

// runPipeline sends batch in one round trip and returns the first statement's error, named by
// what (one description per queued statement). The server skips the statements after a failed
// one; the caller then rolls the transaction back.
func runPipeline(ctx context.Context, conn *pgx.Conn, batch *pgx.Batch, what []string) error {
	results := conn.SendBatch(ctx, batch)
	for _, description := range what {
		if _, err := results.Exec(); err != nil {
			_ = results.Close()
			return fmt.Errorf("%s: %w", description, err)
		}
	}
	if err := results.Close(); err != nil {
		return fmt.Errorf("%s: %w", what[len(what)-1], err)
	}
	return nil
}

// columnTypes returns the SQL types of the columns of tables (the unnest casts of
// queueInserts), read from the catalogue once per table and kept: the schema is the
// migrations', which change only with a new gateway release.
func (s *Store) columnTypes(ctx context.Context, conn querier, tables []string) (map[string]map[string]string, error) {
	types := make(map[string]map[string]string, len(tables))
	for _, table := range tables {
		if known, ok := s.tableTypes.Load(table); ok {
			types[table] = known.(map[string]string)
			continue
		}
		rows, err := conn.Query(ctx, `
			SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
			WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`, table)
		if err != nil {
			return nil, fmt.Errorf("read the columns of %s: %w", table, err)
		}
		columns := map[string]string{}
		for rows.Next() {
			var name, kind string
			if err := rows.Scan(&name, &kind); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read the columns of %s: %w", table, err)
			}
			columns[name] = kind
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read the columns of %s: %w", table, err)
		}
		if len(columns) == 0 {
			return nil, fmt.Errorf("table %s not found: are the migrations applied?", table)
		}
		s.tableTypes.Store(table, columns)
		types[table] = columns
	}
	return types, nil
}

// beginAndLockAgents opens the transaction, scopes it to the group's organisation (as scopeToOrg
// does), says the group queues its own rollup ranges, and locks the group's agent rows in id
// order (two groups sharing agents cannot deadlock), so concurrent requests of one agent cannot
// both pass the same mark; all in one round trip.
func beginAndLockAgents(ctx context.Context, conn *pgx.Conn, members []Member) (map[string]*agentMark, error) {
	ids := make([]string, 0, len(members))
	for _, m := range members {
		ids = append(ids, m.Agent.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	batch := &pgx.Batch{}
	batch.Queue(`BEGIN`)
	batch.Queue(`SET LOCAL ROLE spindle_gateway`)
	batch.Queue(`SELECT set_config('spindle.org_id', $1, true), set_config('spindle.rollups_queued', 'on', true)`, members[0].Agent.OrgID)
	batch.Queue(`
		SELECT id::text, credential_hash, batch_hwm, revoked_at IS NOT NULL, credential_expires_at <= now()
		FROM agents WHERE id = ANY($1::uuid[])
		ORDER BY id FOR UPDATE`, ids)
	results := conn.SendBatch(ctx, batch)
	defer results.Close()
	if _, err := results.Exec(); err != nil {
		return nil, fmt.Errorf("begin telemetry transaction: %w", err)
	}
	if _, err := results.Exec(); err != nil {
		return nil, fmt.Errorf("adopt the spindle_gateway role (is migration 20261123130000_tenant_security applied, and the gateway's login granted spindle_gateway?): %w", err)
	}
	if _, err := results.Exec(); err != nil {
		return nil, fmt.Errorf("set the organisation: %w", err)
	}
	rows, err := results.Query()
	if err != nil {
		return nil, fmt.Errorf("lock agents: %w", err)
	}
	defer rows.Close()
	marks := make(map[string]*agentMark, len(ids))
	for rows.Next() {
		var id string
		mark := &agentMark{}
		if err := rows.Scan(&id, &mark.credentialHash, &mark.hwm, &mark.revoked, &mark.expired); err != nil {
			return nil, fmt.Errorf("lock agents: %w", err)
		}
		marks[id] = mark
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lock agents: %w", err)
	}
	rows.Close()
	if err := results.Close(); err != nil {
		return nil, fmt.Errorf("lock agents: %w", err)
	}
	return marks, nil
}

// queueAdvanceMarks sets every advanced mark in one statement.
func queueAdvanceMarks(batch *pgx.Batch, marks map[string]*agentMark) bool {
	var ids []string
	var hwms []int64
	for id, mark := range marks {
		if mark.advanced {
			ids = append(ids, id)
			hwms = append(hwms, mark.hwm)
		}
	}
	if len(ids) == 0 {
		return false
	}
	batch.Queue(`
		UPDATE agents SET batch_hwm = m.hwm
		FROM unnest($1::uuid[], $2::bigint[]) AS m(id, hwm)
		WHERE agents.id = m.id`, ids, hwms)
	return true
}

// queueTouchServers marks the servers seen and records what their agents report about the host,
// in one statement; an attribute an agent did not send leaves the stored value alone.
func queueTouchServers(batch *pgx.Batch, agents []Agent, hosts map[string]telemetry.HostInfo) bool {
	if len(agents) == 0 {
		return false
	}
	n := len(agents)
	ids, orgs := make([]string, 0, n), make([]string, 0, n)
	fields := make([][]string, 6)
	for _, a := range agents {
		h := hosts[a.ServerID]
		ids, orgs = append(ids, a.ServerID), append(orgs, a.OrgID)
		for f, v := range []string{h.Hostname, h.OS, h.OSVersion, h.Kernel, h.Arch, h.AgentVersion} {
			fields[f] = append(fields[f], v)
		}
	}
	batch.Queue(`
		UPDATE servers SET
			last_seen_at  = now(),
			hostname      = COALESCE(NULLIF(h.hostname, ''), servers.hostname),
			os            = COALESCE(NULLIF(h.os, ''), servers.os),
			os_version    = COALESCE(NULLIF(h.os_version, ''), servers.os_version),
			kernel        = COALESCE(NULLIF(h.kernel, ''), servers.kernel),
			arch          = COALESCE(NULLIF(h.arch, ''), servers.arch),
			agent_version = COALESCE(NULLIF(h.agent_version, ''), servers.agent_version)
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
			AS h(id, org_id, hostname, os, os_version, kernel, arch, agent_version)
		WHERE servers.id = h.id AND servers.org_id = h.org_id`,
		ids, orgs, fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
	return true
}
