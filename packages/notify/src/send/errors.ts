// A failed delivery is either worth retrying (the receiver is down, slow, or asks us to wait) or
// not (the receiver refuses this message or this channel's settings: retrying cannot help).

export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The receiver's own Retry-After, when it gave one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

/** HTTP: 408 and 429 and every 5xx are temporary; any other 4xx is a refusal. */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

// Network failures that say nothing about the message: the next attempt may well succeed.
const retryableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "ESOCKET",
  "ECONNECTION",
  "EDNS",
  "ETIMEOUT",
]);

export function isRetryableNetworkCode(code: string | undefined): boolean {
  return code !== undefined && retryableCodes.has(code);
}
