// What a benchmarked request costs, beside how long it took: on a shared machine the wall clock
// swings with everyone else's load, while CPU per request (the bench process plus the database
// backends) is what the request costs, and an idle 2-core machine cannot answer faster.
import { readFile } from "node:fs/promises";
import type { TestDatabase } from "@/test-support/test-database";

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** CPU milliseconds each database backend has used so far, by pid (Linux /proc). */
export async function databaseCpuMs(db: TestDatabase): Promise<Map<number, number>> {
  const { rows } = await db.pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
  const used = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
      used.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime + stime; USER_HZ is 100 on Linux
    } catch {
      // not on this machine (a remote database) or already gone
    }
  }
  return used;
}

/** CPU the backends used between two readings; a backend that closed in between is left out. */
export function databaseCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}
