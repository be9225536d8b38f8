// Releases a gateway serves (SPINDLE_AGENT_DIST_DIR) made from the build: the release the build
// put in agent/bin at the top (what install.sh and the one-liners install; its files hard links,
// so nothing is copied) and the next patch version, built from the same source with another
// -X main.version, in a sub-directory, so a test can take a real agent one version up and back.
// Each next-version build only relinks (the build cache holds the rest): a few seconds.
// Loadable by Playwright's transform (no import.meta).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repoRoot = resolve(__dirname, "../..");
const builtDir = join(repoRoot, "agent/bin");

export interface BuiltReleases {
  dir: string;
  /** The top release, agent/bin/VERSION. */
  installed: string;
  /** The next patch version, offered as an upgrade. */
  next: string;
  remove(): void;
}

/** 1.2.3 → 1.2.4; a pre-release (1.2.3-dev) → 1.2.3, which sorts after it. */
export function nextPatch(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(version);
  if (!match) throw new Error(`agent/bin/VERSION holds "${version}", not a version like 1.2.3`);
  const [, major, minor, patch, pre] = match;
  return pre ? `${major}.${minor}.${patch}` : `${major}.${minor}.${Number(patch) + 1}`;
}

function builtVersion(): string {
  const versionFile = join(builtDir, "VERSION");
  if (!existsSync(versionFile)) throw new Error("agent/bin/VERSION is missing: run npx turbo run build first.");
  return readFileSync(versionFile, "utf8").trim();
}

/** The built release at the top and the next version for each target ("linux/amd64", "windows/amd64"). */
export function releasesAfterBuilt(targets: string[]): BuiltReleases {
  const installed = builtVersion();
  const next = nextPatch(installed);
  const dir = mkdtempSync(join(tmpdir(), "spindle-built-releases-"));
  for (const name of readdirSync(builtDir)) {
    const from = join(builtDir, name);
    if (!statSync(from).isFile()) continue;
    try {
      linkSync(from, join(dir, name));
    } catch {
      copyFileSync(from, join(dir, name)); // another file system
    }
  }
  mkdirSync(join(dir, next));
  for (const target of targets) {
    const [os, arch] = target.split("/") as [string, string];
    const out = join(dir, next, `spindle-agent-${os}-${arch}${os === "windows" ? ".exe" : ""}`);
    execFileSync("go", ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${next}`, "-o", out, "./cmd/spindle-agent"], {
      cwd: join(repoRoot, "agent"),
      env: { ...process.env, CGO_ENABLED: "0", GOOS: os, GOARCH: arch },
      stdio: ["ignore", "pipe", "pipe"],
    });
  }
  return { dir, installed, next, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The journeys' releases (scripts/start.mjs's SPINDLE_AGENT_DIST_DIR): made once per Playwright run
 * for this host (the runner hands the directory to its workers through the environment) and
 * removed when the runner exits.
 */
export function journeyReleases(): Omit<BuiltReleases, "remove"> {
  const given = process.env.SPINDLE_E2E_AGENT_DIST_DIR;
  if (given) {
    const installed = builtVersion();
    return { dir: given, installed, next: nextPatch(installed) };
  }
  const arch = execFileSync("go", ["env", "GOARCH"], { encoding: "utf8" }).trim();
  const releases = releasesAfterBuilt([`linux/${arch}`]);
  process.env.SPINDLE_E2E_AGENT_DIST_DIR = releases.dir;
  process.on("exit", releases.remove);
  return { dir: releases.dir, installed: releases.installed, next: releases.next };
}
