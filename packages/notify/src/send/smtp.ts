// Sends a rendered e-mail through the channel's SMTP server with nodemailer. The host is resolved
// and checked by the target guard first; nodemailer then connects to that address and verifies
// the certificate against the host name (SNI), so the check and the connection agree.
import { createTransport } from "nodemailer";
import type { ChannelSettingsOf } from "../channel-kinds.js";
import type { EmailMessage } from "../render/message.js";
import { DeliveryError, isRetryableNetworkCode } from "./errors.js";
import { resolveAllowed, type TargetPolicy } from "./target-guard.js";

export interface SmtpSendOptions extends TargetPolicy {
  timeoutMs: number;
}

export interface SmtpSendResult {
  /** The server's answer to the end of DATA, e.g. "250 OK: queued as …". */
  response: string;
  accepted: string[];
}

// Codes nodemailer gives to failures that are about the settings, not the moment.
const permanentCodes = new Set(["EAUTH", "ENOAUTH", "EENVELOPE", "EMESSAGE", "ETLS", "EOAUTH2", "EPROTOCOL"]);

export function classifySmtpError(error: { code?: string; responseCode?: number; message: string }, server: string): DeliveryError {
  const text = `${server}: ${error.message}`;
  if (typeof error.responseCode === "number") {
    // SMTP reply codes: 4xx transient (greylisting, mailbox busy), 5xx permanent.
    return new DeliveryError(text, error.responseCode >= 400 && error.responseCode < 500);
  }
  if (error.code && permanentCodes.has(error.code)) return new DeliveryError(text, false);
  return new DeliveryError(text, isRetryableNetworkCode(error.code) || error.code === undefined);
}

export async function sendEmail(
  message: EmailMessage,
  settings: ChannelSettingsOf<"email">,
  options: SmtpSendOptions,
): Promise<SmtpSendResult> {
  const { config, secrets } = settings;
  const server = `${config.host}:${config.port}`;
  let address: string;
  try {
    address = (await resolveAllowed(config.host, options))[0]!.address;
  } catch (error) {
    if (error instanceof DeliveryError) throw error;
    throw classifySmtpError(error as NodeJS.ErrnoException, server);
  }
  const transport = createTransport({
    host: address,
    port: config.port,
    secure: config.security === "tls",
    requireTLS: config.security === "starttls",
    servername: config.host,
    tls: { servername: config.host },
    auth: config.username ? { user: config.username, pass: secrets.password ?? "" } : undefined,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId: message.messageId,
      references: message.references,
      inReplyTo: message.references,
      headers: message.headers,
    });
    return { response: String(info.response ?? ""), accepted: (info.accepted ?? []).map(String) };
  } catch (error) {
    throw classifySmtpError(error as { code?: string; responseCode?: number; message: string }, server);
  } finally {
    transport.close();
  }
}
