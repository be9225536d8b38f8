import { readFileSync } from "node:fs";
import { SecretsOpener } from "@spindle/notify";
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
    secrets: secretsOpenerFromEnv(env),
  };
}

/** The workers' key for sealed channel secrets; a file that is missing or not a key stops start-up. */
function secretsOpenerFromEnv(env: WorkerEnv): SecretsOpener | null {
  const file = env.SPINDLE_NOTIFY_SECRETS_KEY_FILE;
  if (!file) return null;
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`SPINDLE_NOTIFY_SECRETS_KEY_FILE: cannot read ${file} (${(error as Error).message})`);
  }
  try {
    return new SecretsOpener(pem);
  } catch (error) {
    throw new Error(
      `SPINDLE_NOTIFY_SECRETS_KEY_FILE: ${file} is not an X25519 private key in PEM (${(error as Error).message}); make one with openssl genpkey -algorithm X25519`,
    );
  }
}
