import type { DeliverySettings } from "./jobs/notification-delivery.js";
import type { WorkerEnv } from "./env.js";

// A claim outlives the send deadline by this much: enough for the database writes around it.
const leaseMarginMs = 10_000;

export function deliverySettingsFromEnv(env: WorkerEnv): DeliverySettings {
  const sendTimeoutMs = Math.round(env.SPINDLE_NOTIFY_SEND_TIMEOUT_SECONDS * 1000);
  return {
    consoleUrl: env.SPINDLE_CONSOLE_URL,
    sendTimeoutMs,
    leaseMs: sendTimeoutMs + leaseMarginMs,
    retryBaseMs: Math.round(env.SPINDLE_NOTIFY_RETRY_BASE_SECONDS * 1000),
    retryMaxMs: Math.round(env.SPINDLE_NOTIFY_RETRY_MAX_SECONDS * 1000),
    maxAttempts: env.SPINDLE_NOTIFY_MAX_ATTEMPTS,
    allowPrivateNetworks: env.SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS,
  };
}
