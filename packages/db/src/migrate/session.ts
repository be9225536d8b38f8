import type pg from "pg";

/**
 * The one database connection a migration run uses from start to finish. It must be a single
 * session (not a pool): the advisory lock and each migration's transaction live on it.
 * `pgSession` adapts a node-postgres client; tests adapt PGlite the same way.
 */
export interface MigrationSession {
  /** One statement, optionally with $1-style parameters. */
  query<Row extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>;
  /** A script of any number of statements, no parameters. */
  exec(script: string): Promise<void>;
}

export function pgSession(client: pg.ClientBase): MigrationSession {
  return {
    async query<Row extends object>(text: string, params?: readonly unknown[]) {
      const result = await client.query(text, params ? [...params] : undefined);
      return { rows: result.rows as Row[] };
    },
    async exec(script: string) {
      // Without parameters node-postgres uses the simple query protocol, which runs a whole script.
      await client.query(script);
    },
  };
}
