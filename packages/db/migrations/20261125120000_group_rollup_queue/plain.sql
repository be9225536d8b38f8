-- The rollup queue fed once per group commit instead of once per insert statement (issue 12).
-- The gateway writes a whole group of exports (many agents, every table) in one transaction and
-- knows what it wrote: it queues every (table, server, time span) of the group in one call of
-- queue_rollup_ranges, and marks its transaction with spindle.rollups_queued = 'on' so the
-- per-table statement triggers, which still queue every other writer's inserts (tools, tests,
-- hand-written SQL), skip its statements.

-- PL/pgSQL rather than SQL: its INSERT is planned once per connection, not on every call.
CREATE FUNCTION queue_rollup_ranges(sources text[], org_ids text[], server_ids uuid[],
                                    first_times timestamptz[], last_times timestamptz[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rollup_pending (source, org_id, server_id, first_time, last_time)
  SELECT r.source, r.org_id, r.server_id, r.first_time, r.last_time
  FROM unnest(sources, org_ids, server_ids, first_times, last_times) AS r(source, org_id, server_id, first_time, last_time)
  -- Only tables that have rollups (a queue_rollup trigger) are queued: a raw table added
  -- without rollups costs nothing here and does not trip rollup_pending's source check.
  WHERE r.source IN (SELECT t.tgrelid::regclass::text FROM pg_trigger t WHERE t.tgfoid = 'queue_rollup'::regproc);
END
$$;
GRANT EXECUTE ON FUNCTION queue_rollup_ranges(text[], text[], uuid[], timestamptz[], timestamptz[]) TO spindle_gateway;

-- Every queue_rollup trigger again, now skipped inside a transaction that queued its own ranges.
DO $$
DECLARE
  trig record;
BEGIN
  FOR trig IN
    SELECT t.tgname, t.tgrelid::regclass AS target
    FROM pg_trigger t
    WHERE t.tgfoid = 'queue_rollup'::regproc AND NOT t.tgisinternal
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %s', trig.tgname, trig.target);
    EXECUTE format($t$CREATE TRIGGER %I AFTER INSERT ON %s
      REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT
      WHEN (current_setting('spindle.rollups_queued', true) IS DISTINCT FROM 'on')
      EXECUTE FUNCTION queue_rollup()$t$, trig.tgname, trig.target);
  END LOOP;
END
$$;

-- The worker claims each source's ranges on a connection of its own (apps/worker/src/jobs/
-- rollup.ts); this finds them in id order without reading the other sources' rows.
CREATE INDEX rollup_pending_source_id_idx ON rollup_pending (source, id);
