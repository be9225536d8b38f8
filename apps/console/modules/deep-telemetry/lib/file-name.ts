/**
 * How the agent names a page-cache top file (docs/metrics.md, "Top files"): its path, or, when
 * nothing on the host could name it, its inode in full on its file system's mount point with
 * what the agent tried ("inode 1835021 on / (device 254:1): not open in any process, ..."). Agents
 * before that wrote "inode:<dev>:<ino>", dev in stat(2)'s encoding.
 */
export type TopFileName =
  | { kind: "path"; path: string }
  | { kind: "inode"; inode: string; mountPoint: string | null; device: string; tried: string[] };

const unnamed = /^inode (\d+) on (.+) \(device (\d+:\d+)\): (.*)$/;
const legacy = /^inode:(\d+):(\d+)$/;

export function parseTopFileName(name: string): TopFileName {
  const match = unnamed.exec(name);
  if (match) {
    const [, inode, where, device, tried] = match;
    return {
      kind: "inode",
      inode: inode!,
      mountPoint: where === "a file system not mounted here" ? null : where!,
      device: device!,
      tried: tried!.split(", ").filter(Boolean),
    };
  }
  const old = legacy.exec(name);
  if (old) {
    const dev = BigInt(old[1]!);
    // major(3) and minor(3) of a Linux st_dev.
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    return { kind: "inode", inode: old[2]!, mountPoint: null, device: `${major}:${minor}`, tried: ["not open in any process"] };
  }
  return { kind: "path", path: name };
}

/** The command that finds the file by its inode, where its mount point is known. */
export function findCommand(name: Extract<TopFileName, { kind: "inode" }>): string | null {
  if (!name.mountPoint) return null;
  const quoted = /^[\w@%+=:,./-]+$/.test(name.mountPoint) ? name.mountPoint : `'${name.mountPoint.replaceAll("'", "'\\''")}'`;
  return `find ${quoted} -xdev -inum ${name.inode}`;
}
