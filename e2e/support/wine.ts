// Runs the real Windows agent under Wine (Debian's wine64 8.0), since no Windows machine is
// available to the tests. Go 1.22+ binaries need ProcessPrng from bcryptprimitives.dll, which
// Wine 8 lacks: a shim built here with mingw-w64 (wine/bcryptprimitives.c) goes into a throwaway
// prefix's system32. The shim, the keeper, a booted template prefix and the agent's Windows build
// are cached under /tmp, so a run pays for a copy of the prefix, not for wineboot.
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./gateway";

export const wine64 = "/usr/lib/wine/wine64";
const wineserver = "/usr/lib/wine/wineserver";
const mingw = "x86_64-w64-mingw32-gcc";
const sources = join(import.meta.dirname, "wine");

/** Why the Wine tests cannot run here, or undefined when they can. */
export function wineMissing(): string | undefined {
  if (!existsSync(wine64)) return `${wine64} is missing: apt-get install wine64 (bash scripts/setup.sh --for-tests does)`;
  try {
    execFileSync(mingw, ["--version"], { stdio: "ignore" });
  } catch {
    return `${mingw} is missing: apt-get install gcc-mingw-w64-x86-64-win32 (bash scripts/setup.sh --for-tests does)`;
  }
  return undefined;
}

/** The shim DLL and the keeper, built once per content of their sources. */
function shimFiles(): { dll: string; keeper: string } {
  const hash = createHash("sha256");
  for (const name of ["bcryptprimitives.c", "bcryptprimitives.def", "keeper.c"]) hash.update(readFileSync(join(sources, name)));
  const dir = join(tmpdir(), `spindle-wine-shim-${hash.digest("hex").slice(0, 16)}`);
  const dll = join(dir, "bcryptprimitives.dll");
  const keeper = join(dir, "keeper.exe");
  if (!existsSync(dll) || !existsSync(keeper)) {
    mkdirSync(dir, { recursive: true });
    execFileSync(mingw, [
      "-shared",
      "-O2",
      "-o",
      `${dll}.tmp`,
      join(sources, "bcryptprimitives.c"),
      join(sources, "bcryptprimitives.def"),
      "-ladvapi32",
    ]);
    execFileSync(mingw, ["-O2", "-o", `${keeper}.tmp`, join(sources, "keeper.c")]);
    execFileSync("mv", [`${dll}.tmp`, dll]);
    execFileSync("mv", [`${keeper}.tmp`, keeper]);
  }
  return { dll, keeper };
}

/** agent/bin/spindle-agent-windows-amd64.exe as the build made it (build-dist.sh), built if absent. */
export function windowsAgentBinary(): string {
  const exe = join(repoRoot, "agent/bin/spindle-agent-windows-amd64.exe");
  if (!existsSync(exe)) {
    execFileSync("go", ["build", "-trimpath", "-o", exe, "./cmd/spindle-agent"], {
      cwd: join(repoRoot, "agent"),
      env: { ...process.env, GOOS: "windows", GOARCH: "amd64", CGO_ENABLED: "0" },
      stdio: "pipe",
    });
  }
  return exe;
}

/** A prefix booted by wineboot with the shim in system32, kept under /tmp for the next runs. */
async function bootedTemplate(dll: string): Promise<string> {
  const wineBuild = createHash("sha256").update(readFileSync(wine64)).update(readFileSync(dll)).digest("hex").slice(0, 16);
  const template = join(tmpdir(), `spindle-wine-template-${wineBuild}`);
  if (existsSync(join(template, "drive_c/windows/system32/bcryptprimitives.dll"))) return template;
  const building = mkdtempSync(join(tmpdir(), "spindle-wine-template-building-"));
  const env = { ...process.env, WINEPREFIX: building, WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=", DISPLAY: "" };
  await new Promise<void>((resolve, reject) =>
    execFile(wine64, ["wineboot", "--init"], { env }, (error) => (error ? reject(error) : resolve())),
  );
  execFileSync(wineserver, ["-w"], { env }); // the registry is on disk once the prefix's server has exited
  copyFileSync(dll, join(building, "drive_c/windows/system32/bcryptprimitives.dll"));
  rmSync(template, { recursive: true, force: true });
  renameSync(building, template);
  return template;
}

export interface WineResult {
  code: number;
  output: string;
}

/** A Wine prefix of the test's own under /tmp, with the shim installed and kept running. */
export class WinePrefix {
  readonly dir = mkdtempSync(join(tmpdir(), "spindle-wine-"));
  private keeper?: ChildProcess;
  private readonly env: NodeJS.ProcessEnv = {
    ...process.env,
    WINEPREFIX: this.dir,
    WINEDEBUG: "-all",
    // No Mono or Gecko installers at start-up (none is needed, and they cannot be downloaded).
    WINEDLLOVERRIDES: "mscoree,mshtml=",
    DISPLAY: "",
  };

  /**
   * Fills the prefix from a booted template with the shim (made once per Wine build and shim:
   * wineboot takes a minute on a busy machine, a copy seconds) and starts the keeper.
   */
  async start(): Promise<void> {
    const { dll, keeper } = shimFiles();
    const template = await bootedTemplate(dll);
    execFileSync("cp", ["-a", `${template}/.`, this.dir]);
    this.keeper = spawn(wine64, [keeper], { env: this.env, stdio: "ignore" });
  }

  /** The Unix path of a path on the prefix's C: drive ("C:\\ProgramData\\Spindle"). */
  path(windowsPath: string): string {
    return join(this.dir, "drive_c", windowsPath.replace(/^C:\\/i, "").replaceAll("\\", "/"));
  }

  /** Runs a Windows program (a Z:\ path reaches any Unix file) and waits for it; input goes to its stdin. */
  run(args: string[], input?: string): Promise<WineResult> {
    return new Promise((resolve) => {
      const child = execFile(wine64, args, { env: this.env, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      });
      child.stdin!.end(input ?? "");
    });
  }

  /** Ends every process of the prefix (the agent's service included) and deletes it. */
  destroy(): void {
    try {
      execFileSync(wineserver, ["-k"], { env: this.env, stdio: "ignore" });
    } catch {
      /* nothing was running */
    }
    this.keeper?.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A Unix path as Wine's Z: drive names it. */
export function zPath(unixPath: string): string {
  return `Z:${unixPath.replaceAll("/", "\\")}`;
}
