// The console's one mail path: an SMTP server from SPINDLE_SMTP_URL, or, without one, the local
// mailbox: each message written as an .eml file (mode 0600) into SPINDLE_MAILBOX_DIR, where the
// operator opens it (`npm run mailbox` lists them). Nothing else in the console sends mail.
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createTransport, type Transporter } from "nodemailer";
import type { OutgoingMail } from "../types/mail";

export interface MailTransport {
  /** Where mail goes, for logs and the sign-in pages: "smtp://smtp.example.com:587" or the mailbox path. */
  readonly destination: string;
  readonly isLocalMailbox: boolean;
  send(mail: OutgoingMail): Promise<void>;
}

export interface MailSettings {
  smtpUrl?: string;
  from: string;
  mailboxDir: string;
}

const TIMEOUT_MS = 10_000;

function headersOf(mail: OutgoingMail) {
  return { "X-Spindle-Mail": mail.kind, "Auto-Submitted": "auto-generated" };
}

/** smtp[s]://user:password@host:port[?starttls=required] as nodemailer options; the password never leaves here. */
export function smtpOptions(url: string) {
  const parsed = new URL(url);
  const secure = parsed.protocol === "smtps:";
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    requireTLS: parsed.searchParams.get("starttls") === "required",
    auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  };
}

function smtpTransport(url: string, from: string): MailTransport {
  const options = smtpOptions(url);
  const transporter: Transporter = createTransport(options);
  return {
    destination: `${options.secure ? "smtps" : "smtp"}://${options.host}:${options.port}`,
    isLocalMailbox: false,
    async send(mail) {
      await transporter.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: headersOf(mail) });
    },
  };
}

function fileName(mail: OutgoingMail, at: Date): string {
  const recipient = mail.to
    .toLowerCase()
    .replace(/[^a-z0-9@._-]+/g, "_")
    .slice(0, 80);
  const stamp = at.toISOString().replace(/[:.]/g, "-");
  return `${stamp}-${mail.kind}-${recipient}-${Math.random().toString(36).slice(2, 8)}.eml`;
}

function mailboxTransport(directory: string, from: string): MailTransport {
  const folder = resolve(directory);
  const composer = createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    destination: folder,
    isLocalMailbox: true,
    async send(mail) {
      const info = await composer.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: headersOf(mail),
      });
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeFile(join(folder, fileName(mail, new Date())), info.message as Buffer, { mode: 0o600 });
    },
  };
}

export function createMailTransport(settings: MailSettings): MailTransport {
  return settings.smtpUrl ? smtpTransport(settings.smtpUrl, settings.from) : mailboxTransport(settings.mailboxDir, settings.from);
}
