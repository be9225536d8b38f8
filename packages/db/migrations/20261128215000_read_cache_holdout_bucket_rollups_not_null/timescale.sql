-- Nothing to change on TimescaleDB: the per-bucket rollups are continuous aggregates, whose
-- columns take their nullability from the query (plain.sql holds the change for plain mode).
SELECT 1;
