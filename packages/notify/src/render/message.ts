// What a renderer produces and a sender consumes: an e-mail for SMTP, or a JSON POST.
import type { AlertNotice } from "../notice.js";

export interface NotificationToRender {
  /** The outbox id: webhook-id, e-mail Message-ID, the receivers' idempotency key. */
  id: string;
  purpose: "alert" | "test";
  channelName: string;
  notice: AlertNotice;
}

export interface RenderContext {
  /** The console's public origin, e.g. https://spindle.example.com: links are made from it. */
  consoleUrl: string;
}

export interface EmailMessage {
  transport: "smtp";
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** The alert's thread: every change of one alert references the same id, so clients group them. */
  references: string;
  headers: Record<string, string>;
}

export interface HttpMessage {
  transport: "http";
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Standard Webhooks secret: the sender signs each attempt with a fresh timestamp. */
  signingSecret?: string;
  /** The receiver's documented limit; a bigger body is a permanent error, never a truncated send. */
  maxBodyBytes: number;
}

export type RenderedMessage = EmailMessage | HttpMessage;
