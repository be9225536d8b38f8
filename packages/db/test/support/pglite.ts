// PGlite (PostgreSQL in WebAssembly) built with TimescaleDB: the TimescaleDB path of the
// migrations runs here, because no TimescaleDB server can be installed on this machine.
// The extension is loaded by passing the package's `timescaledb` extension bundle to
// PGlite.create; `CREATE EXTENSION timescaledb` (run by the migration runner) then works.
// Suites of the migrations use createTimescalePglite; suites of what runs on the migrated
// schema start from migratedTimescalePglite's saved copy (src/pglite-testing.ts).
export { createTimescalePglite, migratedTimescalePglite, pgliteSession } from "../../src/pglite-testing.js";
