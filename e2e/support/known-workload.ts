// A read workload whose miss-ratio curve is known, for the recommendation tests: a hot set of
// 32 files of 1 MiB read four times per round, then the next 32 MiB of a scan. An LRU cache
// holding the hot set and one round's scan (64 MiB) hits 4 × 32 / (4 × 32 + 32) = 80 % of the
// reads; one smaller than the hot set hits none (each hot page comes back after the whole set).
//
// The scan reads a sparse file: to the page cache, the read cache and the curves it is a scan
// like any other (each page is brought in, counted as a miss, dropped behind by the read cache),
// but it costs page-cache work, not gigabytes of disk on a shared machine. It must not wrap
// before the curve a recommendation rests on ends (a second pass would be reuse the curve sees):
// `wrappedAt` says when it did.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as pause } from "node:timers/promises";

const mib = 1024 * 1024;

export class KnownWorkload {
  static readonly hotFiles = 32;
  static readonly hotFileBytes = mib;
  static readonly hotPassesPerRound = 4;
  static readonly scanBytesPerRound = 32 * mib;
  static readonly scanFileBytes = 8 * 1024 * mib;
  static readonly hotSetBytes = KnownWorkload.hotFiles * KnownWorkload.hotFileBytes;
  /** The hit ratio of an LRU cache holding the hot set and one round's scan. */
  static readonly hitRatio =
    (KnownWorkload.hotPassesPerRound * KnownWorkload.hotSetBytes) /
    (KnownWorkload.hotPassesPerRound * KnownWorkload.hotSetBytes + KnownWorkload.scanBytesPerRound);
  /** The size that LRU cache needs. */
  static readonly kneeBytes = KnownWorkload.hotSetBytes + KnownWorkload.scanBytesPerRound;

  /** The directory the read cache's policy includes (on a disk file system: the scan must be droppable). */
  readonly dir = mkdtempSync(join(tmpdir(), "spindle-known-workload-"));
  /** When the scan first came back to its start; null while it has not. */
  wrappedAt: Date | null = null;
  startedAt: Date | null = null;
  rounds = 0;
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private scanOffset = 0;

  /** Writes the hot files (random data) and the sparse scan file. */
  create(): void {
    for (let i = 0; i < KnownWorkload.hotFiles; i++) writeFileSync(this.hotPath(i), randomBytes(KnownWorkload.hotFileBytes));
    writeFileSync(this.scanPath, "");
    truncateSync(this.scanPath, KnownWorkload.scanFileBytes);
  }

  start(): void {
    this.startedAt = new Date();
    this.running = true;
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private get scanPath(): string {
    return join(this.dir, "scan");
  }

  private hotPath(i: number): string {
    return join(this.dir, `hot${String(i).padStart(2, "0")}.dat`);
  }

  private async loop(): Promise<void> {
    const buffer = Buffer.alloc(mib);
    while (this.running) {
      for (let pass = 0; pass < KnownWorkload.hotPassesPerRound; pass++) {
        for (let i = 0; i < KnownWorkload.hotFiles; i++) readRange(this.hotPath(i), 0, KnownWorkload.hotFileBytes, buffer);
      }
      readRange(this.scanPath, this.scanOffset, KnownWorkload.scanBytesPerRound, buffer);
      this.scanOffset += KnownWorkload.scanBytesPerRound;
      if (this.scanOffset >= KnownWorkload.scanFileBytes) {
        this.scanOffset = 0;
        this.wrappedAt ??= new Date();
      }
      this.rounds++;
      // Paces the load on a shared machine (about 70 MiB/s of scan); nothing waits on it.
      await pause(400);
    }
  }
}

function readRange(path: string, offset: number, length: number, buffer: Buffer): void {
  const fd = openSync(path, "r");
  try {
    for (let done = 0; done < length; ) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, length - done), offset + done);
      if (n === 0) throw new Error(`${path} ended at ${offset + done}`);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}
