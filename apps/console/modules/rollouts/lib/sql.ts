// Rollouts are created inside the transaction of the change that starts them: a Prisma one (a
// policy version, an assignment, a recommendation's Apply) or a pg one (the fleet page's bulk
// assignment). Both are handed to this module as the one thing it needs: run SQL, get rows.
import type { OrgSql, OrgTransaction } from "@/lib/db";

export interface RolloutSql {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export function sqlOfPrisma(tx: OrgTransaction): RolloutSql {
  return { query: async <T>(text: string, params: unknown[] = []) => ({ rows: (await tx.$queryRawUnsafe(text, ...params)) as T[] }) };
}

export function sqlOfPg(sql: OrgSql): RolloutSql {
  return { query: async <T>(text: string, params: unknown[] = []) => ({ rows: (await sql.query(text, params)).rows as T[] }) };
}
