// Agent releases for the upgrade tests: the real agent built with different version strings into
// one distribution directory as a gateway serves it (SPINDLE_AGENT_DIST_DIR): the top release
// (VERSION) and one sub-directory per other release. Built once per test run: each build after the
// first only relinks with another -X main.version (the broken one recompiles its main package).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./gateway";

export interface ReleaseSpec {
  version: string;
  /** Built with -tags spindle_broken_start: `run` exits with status 1 at once (agent/cmd/spindle-agent). */
  broken?: boolean;
  /** The release at the top of the directory (what install.sh installs). */
  top?: boolean;
}

/** The host's Go architecture: the tests run the binaries here. */
export function hostArch(): string {
  return execFileSync("go", ["env", "GOARCH"], { encoding: "utf8" }).trim();
}

export function buildReleases(specs: ReleaseSpec[]): { dir: string; binary: (version: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), "spindle-releases-"));
  const arch = hostArch();
  const name = `spindle-agent-linux-${arch}`;
  const built = new Map<string, string>();
  for (const spec of specs) {
    const target = spec.top ? dir : join(dir, spec.version);
    mkdirSync(target, { recursive: true });
    const out = join(target, name);
    const args = ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${spec.version}`, "-o", out];
    if (spec.broken) args.push("-tags", "spindle_broken_start");
    execFileSync("go", [...args, "./cmd/spindle-agent"], {
      cwd: join(repoRoot, "agent"),
      env: { ...process.env, CGO_ENABLED: "0", GOOS: "linux", GOARCH: arch },
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (spec.top) writeFileSync(join(dir, "VERSION"), `${spec.version}\n`);
    built.set(spec.version, out);
  }
  return {
    dir,
    binary: (version) => {
      const path = built.get(version);
      if (!path) throw new Error(`no release ${version} was built`);
      const copy = join(mkdtempSync(join(tmpdir(), "spindle-binary-")), name);
      copyFileSync(path, copy);
      return copy;
    },
  };
}
