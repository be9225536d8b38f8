/**
 * A transaction to run in: node-postgres's client inside BEGIN, with the organisation set for
 * row-level security (@spindle/db's withOrgTransaction). Every query here also names org_id.
 */
export interface Queryable {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's own QueryResult types rows as any[], so a pg client satisfies this
  query(text: string, params?: unknown[]): Promise<{ rows: any[]; rowCount?: number | null }>;
}
