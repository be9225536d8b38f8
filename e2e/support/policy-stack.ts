// The policy delivery stack of the integration test and the propagation benchmark: a PostgreSQL
// of its own, the real gateway, the real worker and the real agent installed by install.sh, plus
// the SQL the console runs to save a policy version and assign it.
import { readFileSync, writeFileSync } from "node:fs";
import { mergePolicies, parsePolicy, type PolicyDocument } from "@spindle/policy";
import { policyHash } from "@spindle/policy/hash";
import pg from "pg";
import { InstalledAgent } from "./agent";
import { GatewayProcess } from "./gateway";
import { PostgresCluster } from "./postgres";
import { seedOrganisationWithToken } from "./seed";
import { WorkerProcess } from "./worker";

export class PolicyStack {
  readonly cluster: PostgresCluster;
  readonly databaseUrl: string;
  readonly gateway: GatewayProcess;
  readonly worker: WorkerProcess;
  readonly agent = new InstalledAgent();
  readonly db: pg.Pool;
  orgId = "";
  serverId = "";
  private policyId = "";

  constructor(postgresPort: number, gatewayPort: number) {
    this.cluster = new PostgresCluster(postgresPort);
    this.databaseUrl = this.cluster.url("spindle");
    this.gateway = new GatewayProcess(gatewayPort, this.databaseUrl);
    this.worker = new WorkerProcess(this.databaseUrl);
    this.db = new pg.Pool({ connectionString: this.databaseUrl, max: 3 });
  }

  /** Database, gateway and worker up; the agent installed (eBPF off in agent.yaml) and running. */
  async start(): Promise<void> {
    this.cluster.start();
    this.cluster.createMigratedDatabase();
    const client = await this.db.connect();
    const { orgId, token } = await seedOrganisationWithToken(client as unknown as pg.Client, "policy-delivery");
    client.release();
    this.orgId = orgId;
    await this.gateway.start();
    this.worker.start();
    this.agent.install(InstalledAgent.oneLiner(this.gateway.url, token));
    // eBPF off in agent.yaml: a policy demanding eBPF is then refused whatever the host allows.
    const yaml = readFileSync(this.agent.config, "utf8");
    writeFileSync(this.agent.config, /^ebpf:.*$/m.test(yaml) ? yaml.replace(/^ebpf:.*$/m, "ebpf: off") : `${yaml.trimEnd()}\nebpf: off\n`, {
      mode: 0o600,
    });
    this.agent.setInterval(2);
    this.agent.start();
    const [server] = await this.query<{ id: string }>("SELECT id::text FROM servers");
    this.serverId = server!.id;
  }

  async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params)).rows;
  }

  /**
   * Saves a new version of the organisation's default policy as the console does (the first call
   * also creates the policy and assigns it), and returns the hash the agent must report.
   */
  async saveOrganisationDefault(document: PolicyDocument): Promise<{ hash: string; savedAt: Date }> {
    const saved = await saveOrganisationDefaultPolicy(this.db, this.orgId, this.policyId, document);
    this.policyId = saved.policyId;
    return saved;
  }

  async policyStatus(): Promise<PolicyStatusRow | undefined> {
    const [row] = await this.query<PolicyStatusRow>(
      "SELECT status, applied_hash, reported_hash, message, applied_at FROM server_policy_status WHERE server_id = $1",
      [this.serverId],
    );
    return row;
  }

  describe(): string {
    return `agent output:\n${this.agent.output}\ngateway output:\n${this.gateway.output}\nworker output:\n${this.worker.output}`;
  }

  async destroy(): Promise<void> {
    await this.agent.destroy();
    await this.worker.stop();
    await this.gateway.stop();
    await this.db.end();
    this.cluster.destroy();
  }
}

/**
 * Saves a new version of the organisation's default policy as the console does (without a
 * policyId it also creates the policy and assigns it), and returns the hash the agent must report.
 */
export async function saveOrganisationDefaultPolicy(
  db: pg.Pool,
  orgId: string,
  policyId: string,
  document: PolicyDocument,
): Promise<{ hash: string; savedAt: Date; policyId: string }> {
  if (!policyId) {
    const {
      rows: [policy],
    } = await db.query<{ id: string }>("INSERT INTO policies (org_id, name) VALUES ($1, 'Organisation default') RETURNING id::text", [
      orgId,
    ]);
    policyId = policy!.id;
  }
  const {
    rows: [version],
  } = await db.query<{ created_at: Date }>(
    `INSERT INTO policy_versions (policy_id, org_id, version, document)
     SELECT $1, $2, coalesce(max(version), 0) + 1, $3 FROM policy_versions WHERE policy_id = $1
     RETURNING created_at`,
    [policyId, orgId, JSON.stringify(document)],
  );
  await db.query(
    `INSERT INTO policy_assignments (org_id, policy_id, scope) VALUES ($1, $2, 'organization')
     ON CONFLICT DO NOTHING`,
    [orgId, policyId],
  );
  return { hash: expectedHash(document), savedAt: version!.created_at, policyId };
}

export interface PolicyStatusRow {
  status: string;
  applied_hash: string | null;
  reported_hash: string | null;
  message: string;
  applied_at: Date | null;
}

/** The effective policy of a server whose only layer is this organisation default. */
export function expectedHash(document: PolicyDocument): string {
  const parsed = parsePolicy(mergePolicies(document));
  if (!parsed.ok) throw new Error(`test policy is invalid: ${JSON.stringify(parsed.problems)}`);
  return policyHash(parsed.policy);
}
