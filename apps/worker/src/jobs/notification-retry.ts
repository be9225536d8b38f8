// When to try a failed notification again: exponential backoff from the base, capped, with
// jitter (half fixed, half random) so a receiver coming back from an outage is not hit by every
// waiting notification in the same second. A receiver's Retry-After is honoured up to an hour.

export interface RetryPolicy {
  retryBaseMs: number;
  retryMaxMs: number;
  maxAttempts: number;
}

const retryAfterCapMs = 3_600_000;

/** Null when `attempts` (made so far) used up the policy: the notification fails. */
export function nextRetryDelayMs(
  policy: RetryPolicy,
  attempts: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | null {
  if (attempts >= policy.maxAttempts) return null;
  const exponential = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.min(attempts - 1, 30));
  const jittered = exponential / 2 + random() * (exponential / 2);
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(retryAfterCapMs, retryAfterSeconds * 1000);
  return Math.round(Math.max(jittered, asked));
}
