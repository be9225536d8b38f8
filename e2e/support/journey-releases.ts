// The agent releases the journeys' gateway serves (SPINDLE_AGENT_DIST_DIR of scripts/start.mjs):
// the release the build put in agent/bin, at the top (what install.sh installs), and the next
// patch version, built from the same source with another -X main.version, in a sub-directory, so
// the upgrades journey can take the real agent one version up and back. Made once per Playwright
// run (the runner hands the directory to its workers through the environment) and removed when
// the runner exits. The top release's files are hard links, the new build only relinks: a few
// seconds.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repoRoot = resolve(__dirname, "../..");
const builtDir = join(repoRoot, "agent/bin");

export interface JourneyReleases {
  dir: string;
  /** The top release, agent/bin/VERSION: what the journeys' agents install. */
  installed: string;
  /** The next patch version, offered as an upgrade. */
  next: string;
}

/** 1.2.3 → 1.2.4; a pre-release (1.2.3-dev) → 1.2.3, which sorts after it. */
export function nextPatch(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(version);
  if (!match) throw new Error(`agent/bin/VERSION holds "${version}", not a version like 1.2.3`);
  const [, major, minor, patch, pre] = match;
  return pre ? `${major}.${minor}.${patch}` : `${major}.${minor}.${Number(patch) + 1}`;
}

export function journeyReleases(): JourneyReleases {
  const versionFile = join(builtDir, "VERSION");
  if (!existsSync(versionFile)) throw new Error("agent/bin/VERSION is missing: run npx turbo run build first.");
  const installed = readFileSync(versionFile, "utf8").trim();
  const next = nextPatch(installed);
  const given = process.env.SPINDLE_E2E_AGENT_DIST_DIR;
  if (given) return { dir: given, installed, next };

  const dir = mkdtempSync(join(tmpdir(), "spindle-e2e-dist-"));
  for (const name of readdirSync(builtDir)) {
    const from = join(builtDir, name);
    if (!statSync(from).isFile()) continue;
    try {
      linkSync(from, join(dir, name));
    } catch {
      copyFileSync(from, join(dir, name)); // another file system
    }
  }
  const arch = execFileSync("go", ["env", "GOARCH"], { encoding: "utf8" }).trim();
  mkdirSync(join(dir, next));
  execFileSync(
    "go",
    ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${next}`, "-o", join(dir, next, `spindle-agent-linux-${arch}`), "./cmd/spindle-agent"],
    { cwd: join(repoRoot, "agent"), env: { ...process.env, CGO_ENABLED: "0", GOOS: "linux", GOARCH: arch }, stdio: ["ignore", "pipe", "pipe"] },
  );
  process.env.SPINDLE_E2E_AGENT_DIST_DIR = dir;
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return { dir, installed, next };
}
