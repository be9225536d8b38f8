import type { MigrationSession } from "./session.js";

// "spindle" in ASCII: any fixed bigint works, as long as every runner uses the same one.
const migrationLockKey = "32493220447677541";

/**
 * Serialises migration runs across processes: a second `npm start`, a scaled-out deployment
 * starting several replicas, or a test orchestrator racing a developer. The lock is held by the
 * session, so it is released even if the process dies.
 */
export async function withMigrationLock<T>(session: MigrationSession, log: (line: string) => void, work: () => Promise<T>): Promise<T> {
  const attempt = await session.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${migrationLockKey}) AS locked`);
  if (!attempt.rows[0]?.locked) {
    log("another migration run holds the lock; waiting for it to finish");
    await session.query(`SELECT pg_advisory_lock(${migrationLockKey})`);
  }
  let failed = false;
  try {
    return await work();
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    // After a failure the server may have ended the session, and the lock went with it: the
    // unlock must not replace the error that says what went wrong.
    await session.query(`SELECT pg_advisory_unlock(${migrationLockKey})`).catch((error: unknown) => {
      if (!failed) throw error;
    });
  }
}
