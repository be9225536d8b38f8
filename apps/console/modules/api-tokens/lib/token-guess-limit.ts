// Failed API-token attempts, counted per client address: without it anyone could try tokens as
// fast as the console answers. The address is the one server.ts decided from the connection
// (lib/client-address.ts): the TCP peer, or the client a trusted proxy (SPINDLE_TRUSTED_PROXIES)
// names in X-Forwarded-For, so a forged header neither buys a fresh budget nor puts every client
// in one bucket. Counted in memory per console replica, like better-auth's sign-in limiter.

export const FAILED_TOKEN_ATTEMPTS_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** Beyond this many addresses, expired windows are dropped before a new one is opened. */
const PRUNE_ABOVE = 10_000;

interface Window {
  startedAt: number;
  failures: number;
}

export class TokenGuessLimit {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds until `address` may try again, or null while it is within its budget. */
  retryAfterSeconds(address: string): number | null {
    const window = this.current(address);
    if (!window || window.failures < FAILED_TOKEN_ATTEMPTS_PER_MINUTE) return null;
    return Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    const window = this.current(address);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= PRUNE_ABOVE) this.prune();
    this.windows.set(address, { startedAt: this.now(), failures: 1 });
  }

  private current(address: string): Window | undefined {
    const window = this.windows.get(address);
    if (window && this.now() - window.startedAt >= WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  private prune(): void {
    for (const [address, window] of this.windows) {
      if (this.now() - window.startedAt >= WINDOW_MS) this.windows.delete(address);
    }
  }
}

const holder = globalThis as unknown as { spindleTokenGuessLimit?: TokenGuessLimit };

/** The process's limiter (one per console replica). */
export function tokenGuessLimit(): TokenGuessLimit {
  return (holder.spindleTokenGuessLimit ??= new TokenGuessLimit());
}
