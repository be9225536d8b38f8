// The console's Linux install command, unedited, in the cases the Add server page promises it
// works (the journey in tests/spine.spec.ts covers root on a host without sudo), against the real
// gateway and a PostgreSQL of its own, on a host without systemd. Each run happens in a private
// view of this host (support/host-root.ts): the installer writes /usr/local/bin, /etc/spindle,
// /var/lib/spindle, /var/log/spindle and /run/spindle as on any server, and starts the real agent.
//   - A user with sudo, against a plain-http gateway addressed by this machine's network address
//     (as from another machine): the command carries --allow-http, the root steps go through
//     sudo, the agent runs detached with a log and a pid file and delivers; without the flag the
//     installer refuses before downloading anything.
//   - Run again: the enrolment is kept and the agent restarted (a new pid).
//   - The uninstall line stops the agent and removes everything, and is harmless twice.
// Ports 55650–55651, or SPINDLE_INSTALL_PG_PORT / SPINDLE_INSTALL_GATEWAY_PORT. Root only.
import assert from "node:assert/strict";
import { networkInterfaces } from "node:os";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { installCommand } from "../../apps/console/modules/enrollment/lib/install-command";
import { eventually } from "../support/agent";
import { GatewayProcess } from "../support/gateway";
import { HostRoot } from "../support/host-root";
import { PostgresCluster, queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";

const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
const missing = HostRoot.missing() ?? (lanAddress ? null : "this machine has no non-loopback IPv4 address to reach the gateway by");

describe("the install command, as the console renders it", { skip: missing ?? false }, () => {
  const cluster = new PostgresCluster(Number(process.env.SPINDLE_INSTALL_PG_PORT ?? 55650));
  const databaseUrl = cluster.url("spindle");
  const port = Number(process.env.SPINDLE_INSTALL_GATEWAY_PORT ?? 55651);
  // Listening on every address and telling agents its LAN address, as a gateway other machines use.
  const publicUrl = `http://${lanAddress}:${port}`;
  const gateway = new GatewayProcess(port, databaseUrl, { SPINDLE_GATEWAY_ADDR: `:${port}`, SPINDLE_PUBLIC_URL: publicUrl });
  const host = new HostRoot();
  const user = "spindle-sudoer";
  let command = "";

  function explain(run: { output: string }): string {
    return `${run.output}\nagent log:\n${host.readFile("/var/log/spindle/agent.log") ?? "(none)"}\ngateway:\n${gateway.output.slice(-4000)}`;
  }

  async function delivered(): Promise<number> {
    const rows = await queryRows<{ hwm: string }>(databaseUrl, "SELECT batch_hwm AS hwm FROM agents");
    return rows.length === 1 ? Number(rows[0]!.hwm) : 0;
  }

  function agentPid(): number {
    const pid = Number(host.readFile("/run/spindle/agent.pid"));
    assert.ok(pid > 0, "a pid file with the agent's pid");
    return pid;
  }

  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  before(async () => {
    cluster.start();
    cluster.createMigratedDatabase();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { token } = await seedOrganisationWithToken(client, "install-command");
    await client.end();
    await gateway.start();
    command = installCommand(publicUrl, token);
    await host.start();
    host.addSudoUser(user);
  });

  after(async () => {
    await host.destroy();
    await gateway.stop();
    cluster.destroy();
  });

  test("without --allow-http the installer refuses a plain-http gateway on another host, before downloading", () => {
    assert.match(command, / --allow-http$/, "the rendered command carries the flag for a plain-http gateway");
    const run = host.run(command.replace(/ --allow-http$/, ""), { user });
    assert.notEqual(run.code, 0, run.output);
    assert.match(run.output, new RegExp(`refusing the plain-http gateway '${publicUrl}' on another host`));
    assert.doesNotMatch(run.output, /downloading/);
    assert.equal(host.exists("/usr/local/bin/spindle-agent"), false);
  });

  test("a user with sudo runs it unedited: root steps through sudo, the agent runs detached and delivers", async () => {
    const run = host.run(command, { user });
    assert.equal(run.code, 0, explain(run));
    assert.match(run.output, /not running as root: the steps that need root go through sudo/);
    assert.match(run.output, /checked the gateway's signature on SHA256SUMS/);
    assert.match(run.output, /Enrolled \S+ as server [0-9a-f-]{36}/);
    assert.match(
      run.output,
      /systemd is not running here, so the agent runs detached \(pid \d+\), logging to \/var\/log\/spindle\/agent\.log/,
    );
    assert.match(run.output, /sudo kill "\$\(sudo cat \/run\/spindle\/agent\.pid\)"/, "how to stop it, for this user");
    assert.match(run.output, /start it again, and at boot/);
    const pid = agentPid();
    assert.ok(alive(pid));
    // Detached: the leader of a session of its own, so closing the terminal does not stop it.
    const [, , , session] = (host.readFile(`/proc/${pid}/stat`) ?? "").split(") ")[1]!.split(" ");
    assert.equal(Number(session), pid, "the agent leads its own session");
    assert.equal(host.readFile("/etc/spindle/agent.yaml")?.includes("spa_"), true);
    await eventually("the detached agent's first batch", async () => ((await delivered()) > 0 ? true : undefined), 120_000).catch((error) =>
      assert.fail(`${error}\n${explain(run)}`),
    );
  });

  test("run again: the enrolment is kept and the agent restarted with the new binary", async () => {
    const before = agentPid();
    const run = host.run(command, { user });
    assert.equal(run.code, 0, explain(run));
    assert.match(run.output, /already enrolled with/);
    assert.match(run.output, new RegExp(`stopping the agent \\(pid ${before}\\)`));
    const after = agentPid();
    assert.notEqual(after, before);
    assert.ok(alive(after) && !alive(before));
    const rows = await queryRows<{ n: string }>(databaseUrl, "SELECT count(*) AS n FROM agents");
    assert.equal(rows[0]!.n, "1", "one agent, not a second enrolment");
    const hwm = await delivered();
    await eventually("the restarted agent's next batch", async () => ((await delivered()) > hwm ? true : undefined), 120_000);
  });

  test("the uninstall line stops the agent and removes everything, and is harmless twice", () => {
    const pid = agentPid();
    for (const attempt of [1, 2]) {
      const run = host.run(`curl -fsSL ${publicUrl}/install.sh | sh -s -- --uninstall`, { user });
      assert.equal(run.code, 0, `uninstall ${attempt}: ${run.output}`);
      assert.match(run.output, /the Spindle agent is removed from this host/);
      if (attempt === 1) assert.match(run.output, new RegExp(`stopping the agent \\(pid ${pid}\\)`));
    }
    assert.equal(alive(pid), false);
    for (const path of ["/usr/local/bin/spindle-agent", "/etc/spindle", "/var/lib/spindle", "/var/log/spindle", "/run/spindle"]) {
      assert.equal(host.exists(path), false, path);
    }
  });
});
