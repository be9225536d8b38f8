-- TimescaleDB: the raw hypertables only. The continuous aggregates' columns are nullable
-- already, and their sum/avg/min/max skip NULL, so an unmeasured value stays NULL in a bucket.

-- spindle:include raw.sql
