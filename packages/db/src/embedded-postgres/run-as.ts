// As root, PostgreSQL runs as the `postgres` system user (it refuses to run as root). That user
// must be able to reach its programs and its data directory; a clone under /root, or any
// directory only its owner may enter (mktemp -d makes such), is out of its reach. Then the
// programs are copied, and the data kept, where it can reach them (relocate.ts).
import { execFileSync, spawnSync } from "node:child_process";

export interface Account {
  uid: number;
  gid: number;
  name: string;
}

/** The account PostgreSQL runs as: this process's own, or `postgres` (created if missing) as root. */
export function serverAccount(): Account | null {
  if (process.getuid?.() !== 0) return null;
  const existing = lookup("postgres");
  if (existing) return existing;
  const nologin =
    ["/usr/sbin/nologin", "/sbin/nologin", "/bin/false"].find((shell) => spawnSync("test", ["-x", shell]).status === 0) ?? "/bin/false";
  const common = ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", nologin];
  // A `postgres` group may exist without the user (left by an uninstalled package).
  const group = spawnSync("getent", ["group", "postgres"]).status === 0 ? ["--gid", "postgres"] : ["--user-group"];
  try {
    execFileSync("useradd", [...common, ...group, "postgres"], { stdio: "pipe" });
  } catch (error) {
    throw new Error(
      `PostgreSQL cannot run as root, and creating its \`postgres\` system user failed (${(error as Error).message.trim()}): create it, or set DATABASE_URL`,
    );
  }
  const created = lookup("postgres");
  if (!created) throw new Error("created the `postgres` system user, but cannot find it: set DATABASE_URL instead");
  return created;
}

function lookup(name: string): Account | null {
  const result = spawnSync("id", ["-u", name], { encoding: "utf8" });
  if (result.status !== 0) return null;
  const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
  return { name, uid: Number(result.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Whether `account` can run `program` and enter `directory` (the data directory's parent: the
 * data directory itself is made its own). Asked of the kernel as that account, so ACLs and
 * group rights count too.
 */
export function canReach(account: Account, program: string, directory: string): boolean {
  const probe = spawnSync("/bin/sh", ["-c", 'test -x "$1" && cd "$2"', "probe", program, directory], {
    uid: account.uid,
    gid: account.gid,
    cwd: "/",
    stdio: "ignore",
  });
  return probe.status === 0;
}
