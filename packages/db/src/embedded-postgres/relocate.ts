// As root, in a clone the `postgres` user cannot enter (a directory only its owner may enter,
// such as /root or one made by mktemp -d), the embedded PostgreSQL's programs are copied and its
// data kept under /var/lib/spindle-embedded-postgres/<clone>/, which that user can reach. The
// data directory asked for becomes a symbolic link to the data there, so `.spindle/pgdata` still
// leads to it and deleting the clone's state is still deleting one link (and this directory).
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { chmod, chown, cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { binariesIn, type PostgresBinaries } from "./binaries.js";
import type { Account } from "./run-as.js";

export const relocationRoot = "/var/lib/spindle-embedded-postgres";

export interface Relocated {
  binaries: PostgresBinaries;
  /** The real data directory, which `dataDir` links to. */
  dataDir: string;
}

/** Where the copy for one data directory lives: named by its path, so each clone has its own. */
export function relocationDir(dataDir: string): string {
  const real = resolve(dirname(realpathOr(dirname(dataDir))), basename(dataDir));
  const id = createHash("sha256").update(real).digest("hex").slice(0, 16);
  return join(relocationRoot, `${basename(dirname(real)) || "root"}-${id}`.replace(/[^\w.-]/g, "_"));
}

export async function relocate(installed: PostgresBinaries, dataDir: string, account: Account): Promise<Relocated> {
  const home = relocationDir(dataDir);
  await mkdir(home, { recursive: true, mode: 0o755 });
  await chmod(relocationRoot, 0o755);
  await chmod(home, 0o755);

  // The programs, copied again when the installed package's version changes.
  const native = join(home, "native");
  const stamp = join(home, "native.version");
  const copied = existsSync(stamp) ? (await readFile(stamp, "utf8")).trim() : null;
  if (copied !== installed.version) {
    await rm(native, { recursive: true, force: true });
    await cp(installed.nativeDir, native, { recursive: true, verbatimSymlinks: true });
    await chmod(native, 0o755);
    await writeFile(stamp, `${installed.version}\n`);
  }

  // The data, reached through the link at dataDir.
  const data = join(home, "data");
  if (!existsSync(data)) {
    await mkdir(data, { mode: 0o700 });
    await chown(data, account.uid, account.gid);
  }
  const link = resolve(dataDir);
  const stat = lstatOr(link);
  if (stat?.isSymbolicLink()) {
    if (resolve(dirname(link), readlinkSync(link)) !== data) {
      throw new Error(
        `${link} links to ${readlinkSync(link)}, not to ${data}: remove the link to start this clone's embedded PostgreSQL afresh`,
      );
    }
  } else if (stat) {
    throw new Error(
      `${link} is a data directory the \`postgres\` user cannot reach (one of its parents admits only its owner): ` +
        `move it to ${data} and leave a symbolic link in its place, or set DATABASE_URL`,
    );
  } else {
    await mkdir(dirname(link), { recursive: true });
    await symlink(data, link);
  }
  return { binaries: binariesIn(native, installed.version), dataDir: data };
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function lstatOr(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
