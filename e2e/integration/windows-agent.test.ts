// The real Windows agent (agent/bin/spindle-agent-windows-amd64.exe) under Wine, against the
// real gateway and worker on loopback and a PostgreSQL of its own. No Windows machine is
// available: Wine stands in for one, and what Wine cannot do is asserted as Wine does it (access
// lists, reading recovery actions back). The agent is fetched from the gateway and checked
// against SHA256SUMS as the console's PowerShell one-liner does; `install` enrols it, registers
// the SpindleAgent service and starts it; the service spools and delivers batches, connects over
// OpAMP and applies a policy enabling the read cache and write optimisation, whose capability
// report says what Windows (and Wine) cannot do; install again keeps the enrolment; uninstall removes everything,
// twice; the MSI built by wixl installs, enrols and starts the same service. The gateway is
// reached as from another machine, by this host's network address over plain http: the one-liner
// carries --allow-http, without which `install` refuses it.
// Ports 55570–55571, or SPINDLE_WINE_PG_PORT / SPINDLE_WINE_GATEWAY_PORT.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { describeCapabilities } from "../../apps/console/modules/deep-telemetry/lib/capabilities";
import { eccPublicBlob, windowsInstallCommand } from "../../apps/console/modules/enrollment/lib/install-command";
import { pinnedKeysOf, verifiesAsWindows } from "../../apps/console/test-support/windows-signature";
import { eventually } from "../support/agent";
import { type BuiltReleases, releasesAfterBuilt } from "../support/built-releases";
import { GatewayProcess, repoRoot } from "../support/gateway";
import { saveOrganisationDefaultPolicy } from "../support/policy-stack";
import { PostgresCluster } from "../support/postgres";
import { seedOrganisationWithToken, seedToken } from "../support/seed";
import { windowsAgentBinary, wineMissing, WinePrefix, zPath } from "../support/wine";
import { WorkerProcess } from "../support/worker";

const missing = wineMissing();
const dataDir = "C:\\ProgramData\\Spindle";
const installedExe = "C:\\Program Files\\Spindle\\spindle-agent.exe";
const serviceKey = "HKLM\\System\\CurrentControlSet\\Services\\SpindleAgent";
const MiB = 1024 * 1024;

describe("the Windows agent under Wine", { skip: missing ? `${missing}; the Wine test needs it` : false }, () => {
  const cluster = new PostgresCluster(Number(process.env.SPINDLE_WINE_PG_PORT ?? 55570));
  const databaseUrl = cluster.url("spindle");
  const gatewayPort = Number(process.env.SPINDLE_WINE_GATEWAY_PORT ?? 55571);
  // The address another machine would use (loopback only where this host has no other).
  const lanAddress = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
  const publicUrl = `http://${lanAddress ?? "127.0.0.1"}:${gatewayPort}`;
  // The releases it serves: the build's (what the one-liner installs) and the next patch version
  // for Windows (support/built-releases.ts), made in before().
  const gatewayEnv: Record<string, string> = { SPINDLE_GATEWAY_ADDR: `:${gatewayPort}`, SPINDLE_PUBLIC_URL: publicUrl };
  const gateway = new GatewayProcess(gatewayPort, databaseUrl, gatewayEnv);
  let releases: BuiltReleases | undefined;
  const worker = new WorkerProcess(databaseUrl, { SPINDLE_UPGRADE_INTERVAL_SECONDS: "1" });
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const wine = new WinePrefix();
  let orgId = "";
  let token = "";
  let downloaded = ""; // as Wine names it
  let downloadedUnix = "";
  let installArgs: string[] = []; // the one-liner's `& $f install …`, its variables resolved
  const log: string[] = [];

  async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await db.query<T>(sql, params)).rows;
  }

  async function agent(args: string[], input?: string): Promise<{ code: number; output: string }> {
    const result = await wine.run([downloaded, ...args], input);
    log.push(`$ spindle-agent.exe ${args.join(" ")} → ${result.code}\n${result.output}`);
    return result;
  }

  function describeFailure(): string {
    const agentLog = wine.path(`${dataDir}\\agent.log`);
    return (
      `${log.join("\n")}\nagent.log:\n${existsSync(agentLog) ? readFileSync(agentLog, "utf8") : "(none)"}\n` +
      `gateway output:\n${gateway.output}\nworker output:\n${worker.output}`
    );
  }

  async function explained(body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      console.error(describeFailure());
      throw error;
    }
  }

  async function delivered(): Promise<number> {
    const rows = await query<{ hwm: string }>("SELECT batch_hwm AS hwm FROM agents");
    return rows.length === 1 ? Number(rows[0]!.hwm) : 0;
  }

  before(async () => {
    windowsAgentBinary(); // the gateway serves it from agent/bin
    releases = releasesAfterBuilt(["windows/amd64"]);
    gatewayEnv.SPINDLE_AGENT_DIST_DIR = releases.dir;
    cluster.start();
    cluster.createMigratedDatabase();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    ({ orgId, token } = await seedOrganisationWithToken(client, "windows-agent"));
    await client.end();
    await gateway.start();
    worker.start();
    await wine.start();
  });

  after(async () => {
    wine.destroy();
    await worker.stop();
    await gateway.stop();
    await db.end();
    cluster.destroy();
    releases?.remove();
  });

  test("every URL the console's PowerShell one-liner names is served; the agent matches SHA256SUMS", () =>
    explained(async () => {
      // PowerShell is not installable here: the command's variables are resolved as PowerShell
      // would, and each download it makes is fetched from the real gateway.
      // The keys the console pins: those the real gateway recorded when it started.
      const keys = await eventually("the gateway records its signing key", async () => {
        const rows = await query<{ public_key: Buffer }>("SELECT public_key FROM gateway_signing_keys WHERE algorithm = 'ecdsa-p256'");
        return rows.length > 0 ? rows.map((r) => eccPublicBlob(r.public_key).toString("base64")) : undefined;
      });
      const command = windowsInstallCommand(publicUrl, token, keys);
      const vars = Object.fromEntries([...command.matchAll(/\$(\w+)='([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
      const urls = [...command.matchAll(/Invoke-WebRequest -UseBasicParsing "([^"]+)"/g)].map((m) =>
        m[1]!.replace(/\$(\w+)/g, (_, name: string) => vars[name] ?? `<unset ${name}>`),
      );
      assert.deepEqual(urls, [
        `${publicUrl}/download/spindle-agent-windows-amd64.exe`,
        `${publicUrl}/download/SHA256SUMS`,
        `${publicUrl}/download/SHA256SUMS.p256.sig`,
      ]);
      // The last statement pipes the token into the downloaded agent's install, as the next test runs it.
      const [, install] = /^'spe_[^']*' \| & \$f (install .*)$/.exec(command.split("; ").at(-1)!) ?? assert.fail(command);
      installArgs = install!.split(" ").map((word) => (word.startsWith("$") ? (vars[word.slice(1)] ?? `<unset ${word}>`) : word));
      assert.deepEqual(installArgs, ["install", "--token-file", "-", "--gateway", publicUrl, ...(lanAddress ? ["--allow-http"] : [])]);
      const [binaryResponse, sumsResponse, signatureResponse] = await Promise.all(urls.map((url) => fetch(url)));
      assert.equal(binaryResponse!.status, 200);
      assert.equal(sumsResponse!.status, 200);
      assert.equal(signatureResponse!.status, 200);
      const binary = Buffer.from(await binaryResponse!.arrayBuffer());
      const sumsBytes = Buffer.from(await sumsResponse!.arrayBuffer());
      // The one-liner's signature check (.NET ECDsaCng.VerifyData, done as .NET does it: issue 25, L4).
      assert.ok(
        verifiesAsWindows(sumsBytes, Buffer.from(await signatureResponse!.arrayBuffer()), pinnedKeysOf(command)),
        "the gateway's P-256 signature over SHA256SUMS passes the check with the key the console pins",
      );
      const sums = sumsBytes.toString("ascii");
      // The one-liner's check: "<lower-case sha256>  <name>" is one of SHA256SUMS's lines.
      const expected = `${createHash("sha256").update(binary).digest("hex")}  ${vars.n}`;
      assert.ok(sums.split("\n").includes(expected), `SHA256SUMS has ${expected}:\n${sums}`);
      assert.ok(sums.includes("  spindle-agent-windows-amd64.msi\n"), "SHA256SUMS lists the MSI too");
      downloadedUnix = join(wine.dir, "spindle-agent.exe");
      writeFileSync(downloadedUnix, binary, { mode: 0o755 });
      downloaded = zPath(downloadedUnix);
      const version = await agent(["version"]);
      assert.equal(version.code, 0, version.output);
      assert.match(version.output, /^spindle-agent \S+/);
    }));

  test("install enrols, registers the service, and the service delivers batches", () =>
    explained(async () => {
      if (lanAddress) {
        // A plain-http gateway on another host is refused unless the command says --allow-http.
        const refused = await agent(
          installArgs.filter((a) => a !== "--allow-http"),
          `${token}\r\n`,
        );
        assert.notEqual(refused.code, 0, refused.output);
        assert.match(refused.output, /refusing the plain-http gateway .* on another host/);
        assert.equal(existsSync(wine.path(installedExe)), false, "nothing installed");
      }
      const result = await agent(installArgs, `${token}\r\n`); // PowerShell pipes CRLF
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, /enrolled .* as server [0-9a-f-]{36}/);
      assert.match(result.output, /service SpindleAgent registered: starts at boot/);
      assert.match(result.output, /service SpindleAgent running/);
      // Wine keeps no access lists: the agent reads the DACL back and says so instead of claiming it.
      assert.match(
        result.output,
        /C:\\ProgramData\\Spindle: access limited to SYSTEM and Administrators|warning: Wine keeps no access lists, C:\\ProgramData\\Spindle is not restricted/,
      );
      // Restart on failure is claimed only when read back; Wine takes the actions but cannot read them back.
      assert.match(result.output, /restarts on failure|warning: .*recovery actions/);

      const yaml = readFileSync(wine.path(`${dataDir}\\agent.yaml`), "utf8");
      const [server] = await query<{ id: string }>("SELECT id::text FROM servers WHERE org_id = $1", [orgId]);
      assert.ok(server, "the gateway created the server");
      assert.match(yaml, new RegExp(`^server_id: ${server.id}$`, "m"));
      assert.match(yaml, /^credential: spa_/m);
      assert.match(yaml, /^state_dir: C:\\ProgramData\\Spindle\\state$/m);
      assert.ok(
        readFileSync(wine.path(installedExe)).equals(readFileSync(downloadedUnix)),
        "the service's executable is the downloaded agent",
      );

      const service = await wine.run(["reg", "query", serviceKey]);
      assert.equal(service.code, 0, service.output);
      assert.match(
        service.output,
        /ImagePath\s+REG_\w+\s+"C:\\Program Files\\Spindle\\spindle-agent\.exe" run --service --config C:\\ProgramData\\Spindle\\agent\.yaml/,
      );
      assert.match(service.output, /Start\s+REG_DWORD\s+0x2\b/, "automatic start");
      assert.match(service.output, /ObjectName\s+REG_SZ\s+LocalSystem/);
      assert.match((await wine.run(["sc", "query", "SpindleAgent"])).output, /STATE\s+:\s+4\s+RUNNING/);

      // The service samples, spools and delivers: the gateway's high-water mark for this agent
      // advances batch by batch (each committed with its rows in one transaction).
      await eventually("two batches delivered by the service", async () => (await delivered()) >= 2 || undefined, 120_000);
      // status.json is written each tick, so it reports a delivery one tick after the gateway has it.
      const status = await eventually("the service's status.json reporting the deliveries", () => {
        const s = JSON.parse(readFileSync(wine.path(`${dataDir}\\state\\status.json`), "utf8"));
        return s.delivery?.lastDeliveredSeq >= 2 ? s : undefined;
      });
      assert.equal(status.serverId, server.id);
      const memory = status.collectors.find((c: { name: string }) => c.name === "meminfo");
      if (memory?.state === "ok") {
        // Where the Windows memory collector runs under Wine, its rows must be in the database.
        await eventually(
          "memory rows from the Windows agent",
          async () => (await query("SELECT 1 FROM memory WHERE server_id = $1 LIMIT 1", [server.id])).length > 0 || undefined,
        );
      }
      const agentLog = readFileSync(wine.path(`${dataDir}\\agent.log`), "utf8");
      assert.match(agentLog, /agent started/, "the service logs to agent.log");
    }));

  test("the service connects over OpAMP and applies a policy with the read cache and write optimisation (APPLIED recorded)", () =>
    explained(async () => {
      // Files for the features, on the prefix's C: drive, where the service sees them.
      mkdirSync(wine.path("C:\\SpindleData\\cache"), { recursive: true });
      mkdirSync(wine.path("C:\\SpindleData\\logs"), { recursive: true });
      for (const name of ["index.dat", "table.dat"]) writeFileSync(wine.path(`C:\\SpindleData\\cache\\${name}`), Buffer.alloc(MiB, name));
      const { hash } = await saveOrganisationDefaultPolicy(db, orgId, "", {
        schemaVersion: 1,
        telemetry: { intervalSeconds: 3, ebpf: "auto" },
        readCache: {
          enabled: true,
          include: ["C:/SpindleData/cache"],
          pin: ["C:/SpindleData/cache/index.dat"],
          budgetBytes: 64 * MiB,
          freeMemoryFloorBytes: 64 * MiB,
          scanResistanceThresholdBytes: 16 * MiB,
        },
        writeOptimization: { enabled: true, preallocation: [{ pattern: "C:/SpindleData/logs/*.log", chunkBytes: MiB }] },
      });
      const row = await eventually(
        "the Windows agent's APPLIED status",
        async () => {
          const [s] = await query<{ status: string; applied_hash: string | null; message: string }>(
            "SELECT status, applied_hash, message FROM server_policy_status",
          );
          return s?.status === "applied" && s.applied_hash === hash ? s : undefined;
        },
        120_000,
      );
      assert.equal(row.message, "");
      const status = await eventually("the policy's interval in force in the service", () => {
        const s = JSON.parse(readFileSync(wine.path(`${dataDir}\\state\\status.json`), "utf8"));
        return s.intervalSeconds === 3 && s.policy?.hash === hash ? s : undefined;
      });
      assert.equal(status.policy.opampConnected, true, "connected over OpAMP");

      // What each feature does here, as status.json says it: both run; Windows cannot measure
      // residency; Wine implements neither FileAllocationInfo nor the defragmentation FSCTLs.
      const capability = (name: string) =>
        status.capabilities.find((c: { name: string }) => c.name === name) ??
        assert.fail(`${name} missing from ${JSON.stringify(status.capabilities)}`);
      assert.equal(capability("accel.read_cache").available, true);
      assert.equal(capability("accel.write_optimization").available, true);
      assert.equal(capability("accel.read_cache.residency").available, false);
      assert.match(capability("accel.read_cache.residency").reason, /without a kernel driver/);
      // Nothing can count a control group there: none is held out, and what the cache caused is not measured.
      assert.equal(capability("accel.read_cache.holdout").available, false);
      assert.match(capability("accel.read_cache.holdout").reason, /without a kernel driver/);
      assert.equal(capability("accel.write_optimization.preallocation").available, false);
      assert.match(capability("accel.write_optimization.preallocation").reason, /refuses FileAllocationInfo/);
      assert.equal(capability("accel.write_optimization.defragmentation").available, false);
      assert.match(capability("accel.write_optimization.defragmentation").reason, /FSCTL_GET_VOLUME_BITMAP/);
      // The features' statistics are collected every tick in the service (the accel collector is ok).
      const cache = await eventually("the read cache's pin in the service's status", () => {
        const s = JSON.parse(readFileSync(wine.path(`${dataDir}\\state\\status.json`), "utf8"));
        const accel = s.collectors.find((c: { name: string }) => c.name === "accel");
        return accel?.state === "ok" ? s : undefined;
      });
      assert.ok(cache);

      // The console's capability panel, from what the batches reported.
      const [agentRow] = await query<{ caps: string[]; at: Date }>(
        "SELECT telemetry_capabilities AS caps, telemetry_capabilities_at AS at FROM agents",
      );
      const shown = describeCapabilities(agentRow!.caps, agentRow!.at).items;
      const item = (name: string) => shown.find((c) => c.name === name)!;
      assert.equal(item("accel.read_cache").available, true);
      assert.equal(item("accel.write_optimization").available, true);
      assert.equal(item("accel.read_cache.residency").available, false);
      assert.match(item("accel.read_cache.residency").whenMissing, /without a kernel driver/);
      assert.equal(item("accel.write_optimization.defragmentation").available, false);
    }));

  test("an upgrade over OpAMP swaps the service's binary: stopped, swapped, started, installed", () =>
    explained(async () => {
      const { installed, next } = releases!;
      const [server] = await query<{ id: string; version: string }>("SELECT id::text, agent_version AS version FROM servers");
      assert.equal(server!.version, installed);
      // The service says it replaces its own binary (install method "windows", restarted as the service).
      const upgrade = await eventually("the agent's upgrade capability", async () => {
        const [row] = await query<{ upgrade: { installMethod: string; remote: boolean; reason?: string } | null }>(
          "SELECT capabilities->'upgrade' AS upgrade FROM agents",
        );
        return row?.upgrade ?? undefined;
      });
      assert.deepEqual([upgrade.installMethod, upgrade.remote], ["windows", true], `the agent cannot upgrade itself: ${upgrade.reason}`);
      // What the console's start-upgrade writes for one server (as in agent-upgrade.test.ts).
      const [rollout] = await query<{ id: string }>(
        `INSERT INTO agent_upgrade_rollouts (org_id, target_version, scope, plan, wave_count, created_by)
         VALUES ($1, $2, $3, '{"canary":1,"wavePercents":[100],"soakMinutes":0,"answerTimeoutMinutes":15}', 1, NULL) RETURNING id::text`,
        [orgId, next, JSON.stringify({ kind: "servers", serverIds: [server!.id] })],
      );
      await query(
        `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, wave, target_version, from_version, state, offered_at)
         VALUES ($1, $2, $3, 0, $4, $5, 'offered', now())`,
        [orgId, server!.id, rollout!.id, next, installed],
      );
      const outcome = await eventually(
        "the upgrade's outcome",
        async () => {
          const [row] = await query<{ state: string; message: string; status: string }>(
            `SELECT u.state, u.message, r.status FROM agent_upgrades u JOIN agent_upgrade_rollouts r ON r.id = u.rollout_id WHERE u.rollout_id = $1`,
            [rollout!.id],
          );
          return row && ["installed", "failed", "rolled_back"].includes(row.state) && row.status !== "running" ? row : undefined;
        },
        240_000,
      );
      assert.deepEqual([outcome.state, outcome.status], ["installed", "completed"], outcome.message);
      // The service's binary is the new one, and the service runs it.
      const version = await wine.run([installedExe, "version"]);
      assert.match(version.output, new RegExp(`^spindle-agent ${next.replaceAll(".", "\\.")}\\r?$`, "m"));
      assert.match((await wine.run(["sc", "query", "SpindleAgent"])).output, /STATE\s+:\s+4\s+RUNNING/);
      assert.equal((await query<{ v: string }>("SELECT agent_version AS v FROM servers"))[0]!.v, next);
      const before = await delivered();
      await eventually("batches from the upgraded service", async () => (await delivered()) > before || undefined, 120_000);
    }));

  test("install again keeps the enrolment; uninstall removes everything, twice", () =>
    explained(async () => {
      const again = await agent(["install"]);
      assert.equal(again.code, 0, again.output);
      assert.match(again.output, /already enrolled as server/);
      assert.equal((await query("SELECT 1 FROM servers")).length, 1, "no second server");

      const removed = await agent(["uninstall"]);
      assert.equal(removed.code, 0, removed.output);
      assert.match(removed.output, /service SpindleAgent stopped and removed/);
      assert.equal(existsSync(wine.path(dataDir)), false, "ProgramData\\Spindle removed");
      assert.equal(existsSync(wine.path("C:\\Program Files\\Spindle")), false, "Program Files\\Spindle removed");
      assert.notEqual((await wine.run(["reg", "query", serviceKey])).code, 0, "the service is gone from the registry");
      const twice = await agent(["uninstall"]);
      assert.equal(twice.code, 0, twice.output);
    }));

  test("the MSI installs the service and enrols with SPINDLE_GATEWAY and SPINDLE_TOKEN", () =>
    explained(async () => {
      const msi = join(repoRoot, "agent/bin/spindle-agent-windows-amd64.msi");
      if (!existsSync(msi)) {
        assert.fail(`${msi} is missing: the agent's build makes it with wixl (apt-get install wixl, then npm run build -w @spindle/agent)`);
      }
      // This machine was enrolled before: an admin allows re-enrolment in the console, as for a reinstall.
      await query("UPDATE agents SET reenrollment_allowed_until = now() + interval '1 hour'");
      const fresh = await seedToken(db, orgId);
      const before = await delivered();
      const install = await wine.run(["msiexec", "/i", zPath(msi), "/qn", `SPINDLE_GATEWAY=${gateway.url}`, `SPINDLE_TOKEN=${fresh}`]);
      log.push(`$ msiexec /i → ${install.code}\n${install.output}`);
      assert.equal(install.code, 0, install.output);
      assert.ok(existsSync(wine.path(installedExe)), "the MSI installed the agent");
      assert.match((await wine.run(["reg", "query", serviceKey])).output, /run --service --config/);
      await eventually("batches from the MSI-installed service", async () => (await delivered()) >= before + 2 || undefined, 120_000);

      const remove = await wine.run(["msiexec", "/x", zPath(msi), "/qn"]);
      assert.equal(remove.code, 0, remove.output);
      assert.notEqual((await wine.run(["reg", "query", serviceKey])).code, 0, "msiexec /x removed the service");
    }));
});
