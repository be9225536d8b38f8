// Propagation time of a policy change over OpAMP WebSocket on loopback: from the INSERT of a
// new policy version (policy_versions.created_at) to the agent's APPLIED being recorded
// (server_policy_status.applied_at), both on the database's clock, through the real worker,
// gateway and agent. Prints p50/p90/p99/max as markdown for docs/benchmarks.md.
//
//   npm run build -w @spindle/policy && (cd agent && npm run build) && (cd apps/gateway && npm run build)
//   node --import tsx e2e/bench/policy-propagation.ts [changes=50]
import { eventually } from "../support/agent";
import { PolicyStack } from "../support/policy-stack";

const changes = Number(process.argv[2] ?? 50);
const stack = new PolicyStack(56720, 56721);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  await stack.start();
  // Warm-up: the first policy also waits for the agent's first connection.
  const first = await stack.saveOrganisationDefault({ schemaVersion: 1, telemetry: { intervalSeconds: 3 } });
  await eventually("the first policy", async () => ((await stack.policyStatus())?.applied_hash === first.hash ? true : undefined));

  const millis: number[] = [];
  for (let i = 0; i < changes; i++) {
    const { hash, savedAt } = await stack.saveOrganisationDefault({ schemaVersion: 1, telemetry: { intervalSeconds: 4 + i } });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await stack.policyStatus();
      if (status?.status === "applied" && status.applied_hash === hash && status.applied_at) {
        millis.push(status.applied_at.getTime() - savedAt.getTime());
        break;
      }
      if (Date.now() > deadline) throw new Error(`change ${i} (${hash}) was not applied within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const sorted = [...millis].sort((a, b) => a - b);
  const transport = (stack.agent.status() as unknown as { policy?: { opampTransport?: string } }).policy?.opampTransport;
  if (transport !== "websocket") throw new Error(`the agent used ${transport}, not websocket`);
  console.log(`| changes | transport | p50 | p90 | p99 | max |`);
  console.log(`|---|---|---|---|---|---|`);
  console.log(
    `| ${changes} | ${transport} | ${percentile(sorted, 50)} ms | ${percentile(sorted, 90)} ms | ${percentile(sorted, 99)} ms | ${sorted.at(-1)} ms |`,
  );
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    console.error(stack.describe());
    process.exitCode = 1;
  })
  .finally(() => stack.destroy());
