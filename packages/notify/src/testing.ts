// @spindle/notify/testing: real receivers for tests of this package and the worker. An HTTP
// server that records every request (and can answer with errors or hang), and an SMTP server
// (the `smtp-server` package) that records every message. Tests wait on their events.
import { EventEmitter, once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { generateSecretsKey, SecretsOpener } from "./secrets/sealed-secrets.js";

/** One key for a test process: register its public half (registerSecretsKey), open with it. */
export const testSecretsKeyPem = generateSecretsKey().privateKeyPem;
export const testSecretsOpener = new SecretsOpener(testSecretsKeyPem);

/** The test key as a file, for a worker started as a process (SPINDLE_NOTIFY_SECRETS_KEY_FILE). */
export function writeTestSecretsKeyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), "spindle-notify-key-")), "secrets-key.pem");
  writeFileSync(file, testSecretsKeyPem, { mode: 0o600 });
  return file;
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string> } | "hang";

export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number): Promise<ReceivedRequest[]>;
  /** Changes the answer for the requests that follow. */
  answerWith(answer: (request: ReceivedRequest, index: number) => Answer): void;
  close(): Promise<void>;
}

export async function startHttpReceiver(
  answer: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: "ok" }),
): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const events = new EventEmitter();
  let respond = answer;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      const index = requests.push(request) - 1;
      events.emit("request");
      const reply = respond(request, index);
      if (reply === "hang") return;
      res.writeHead(reply.status, reply.headers ?? { "content-type": "text/plain" });
      res.end(reply.body ?? "");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitForRequests(count) {
      while (requests.length < count) await once(events, "request");
      return requests;
    },
    answerWith(next) {
      respond = next;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Map<string, string>;
  subject: string;
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  messages: ReceivedMail[];
  waitForMessages(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export interface SmtpReceiverOptions {
  /** Listen on this port (to bring a server back where a channel points); 0 picks one. */
  port?: number;
  /** Refuse every recipient with this SMTP reply, e.g. 550 or 451. */
  refuseRecipients?: { code: number; message: string };
}

/** A plain SMTP server on 127.0.0.1 (no STARTTLS, no auth) that keeps what it receives. */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const events = new EventEmitter();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!options.refuseRecipients) return callback();
      const error = Object.assign(new Error(options.refuseRecipients.message), { responseCode: options.refuseRecipients.code });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const headers = parseHeaders(raw);
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          headers,
          subject: decodeEncodedWords(headers.get("subject") ?? ""),
          raw,
        });
        callback();
        events.emit("message");
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    messages,
    async waitForMessages(count) {
      while (messages.length < count) await once(events, "message");
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header names lower-cased, folded lines joined. */
function parseHeaders(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? "";
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=) as nodemailer writes non-ASCII subjects. */
function decodeEncodedWords(value: string): string {
  return value.replace(/\?=\s+=\?/g, "?==?").replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_all, encoding: string, text: string) =>
    encoding.toLowerCase() === "b"
      ? Buffer.from(text, "base64").toString("utf8")
      : Buffer.from(
          text.replace(/_/g, " ").replace(/=([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          "latin1",
        ).toString("utf8"),
  );
}

/** A port nothing listens on right now (for "the server is down"); reuse it to bring one up. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}
