// POSTs a rendered message with a hard deadline (connect, send and response together), no
// redirects (a receiver that moved must be re-configured, not followed blindly), and at most
// 64 KiB of response read for the error message.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { HttpMessage } from "../render/message.js";
import { standardWebhookHeaders } from "../standard-webhooks.js";
import { DeliveryError, isRetryableHttpStatus, isRetryableNetworkCode, parseRetryAfter } from "./errors.js";
import { guardedLookup, resolveAllowed, type TargetPolicy } from "./target-guard.js";

export interface HttpSendOptions extends TargetPolicy {
  timeoutMs: number;
  /** The outbox id, signed into Standard Webhooks headers. */
  notificationId: string;
  now?: () => Date;
}

export interface HttpSendResult {
  status: number;
  responseBody: string;
}

const maxResponseBytes = 64 * 1024;

/** The URL without its path and query: Slack and Teams URLs carry their secret in the path. */
function redactedUrl(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}

export async function postMessage(message: HttpMessage, options: HttpSendOptions): Promise<HttpSendResult> {
  const url = new URL(message.url);
  const where = redactedUrl(url);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && options.allowPrivateNetworks)) {
    throw new DeliveryError(
      `${where}: only https:// receivers are allowed (plain http:// needs SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS=true on the worker)`,
      false,
    );
  }
  // node:net connects to an IP literal without calling `lookup`, so literals are checked here.
  if (isIP(url.hostname.replace(/^\[|\]$/g, ""))) await resolveAllowed(url.hostname, options);
  const bodyBytes = Buffer.byteLength(message.body);
  if (bodyBytes > message.maxBodyBytes) {
    throw new DeliveryError(`the message is ${bodyBytes} bytes, over this receiver's limit of ${message.maxBodyBytes}`, false);
  }
  const headers: Record<string, string> = {
    ...message.headers,
    "content-length": String(bodyBytes),
    "user-agent": "Spindle-Notifications/1",
    ...(message.signingSecret
      ? standardWebhookHeaders(message.signingSecret, options.notificationId, message.body, options.now?.() ?? new Date())
      : {}),
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const response = await new Promise<{ status: number; body: string; retryAfter?: string }>((resolve, reject) => {
    const request = send(url, {
      method: "POST",
      headers,
      lookup: guardedLookup(options) as never,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    request.on("response", (incoming: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        if (size < maxResponseBytes) chunks.push(chunk.subarray(0, maxResponseBytes - size));
        size += chunk.length;
      });
      incoming.on("end", () =>
        resolve({
          status: incoming.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          retryAfter: incoming.headers["retry-after"],
        }),
      );
      incoming.on("error", reject);
    });
    request.on("error", reject);
    request.end(message.body);
  }).catch((error: NodeJS.ErrnoException) => {
    if (error instanceof DeliveryError) throw error;
    if (error.name === "AbortError" || error.name === "TimeoutError") {
      throw new DeliveryError(`${where}: no answer within ${options.timeoutMs} ms`, true);
    }
    // A refusal by the target guard arrives here wrapped by node:http; keep its verdict.
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof DeliveryError) throw cause;
    throw new DeliveryError(
      `${where}: ${error.code ?? error.name}: ${error.message}`,
      isRetryableNetworkCode(error.code) || error.code === undefined,
    );
  });
  if (response.status >= 200 && response.status < 300) return { status: response.status, responseBody: response.body };
  const retryable = isRetryableHttpStatus(response.status);
  const detail = response.body.replace(/\s+/g, " ").trim().slice(0, 300);
  throw new DeliveryError(
    `${where} answered ${response.status}${detail ? `: ${detail}` : ""}`,
    retryable,
    retryable ? parseRetryAfter(response.retryAfter) : undefined,
  );
}
