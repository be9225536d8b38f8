-- The rollup queue fed once per group commit (plain.sql) exists only in plain mode: TimescaleDB's
-- continuous aggregates refresh from the raw hypertables on their own. The gateway calls the same
-- function in both modes, so here it does nothing.

CREATE FUNCTION queue_rollup_ranges(sources text[], org_ids text[], server_ids uuid[],
                                    first_times timestamptz[], last_times timestamptz[])
RETURNS void LANGUAGE sql AS $$ SELECT $$;
GRANT EXECUTE ON FUNCTION queue_rollup_ranges(text[], text[], uuid[], timestamptz[], timestamptz[]) TO spindle_gateway;
