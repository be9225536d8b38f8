// The journeys' mail server: a real SMTP server (npm smtp-server) that the console under test
// sends to (SPINDLE_SMTP_URL), and a small HTTP reader the tests ask for what arrived. Playwright
// starts it as a web server before the stack (playwright.config.ts), so every journey, and the
// shared sign-up helper, reads the console's mail from it.
//   node --import tsx support/mail-sink.ts     (ports from SPINDLE_E2E_SMTP_PORT / SPINDLE_E2E_MAILBOX_PORT)
import { createServer } from "node:http";
import { SMTPServer } from "smtp-server";
import { mailPorts } from "./mail-ports";
import { parseMessage, type ReceivedMessage } from "./mime";

const messages: ReceivedMessage[] = [];

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      for (const rcpt of session.envelope.rcptTo) messages.push(parseMessage(raw, rcpt.address, messages.length));
      callback();
    });
  },
});

const reader = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://mailbox");
  response.setHeader("content-type", "application/json");
  if (url.pathname === "/healthz") return response.end(JSON.stringify({ messages: messages.length }));
  if (url.pathname === "/messages") {
    const to = url.searchParams.get("to")?.toLowerCase();
    return response.end(JSON.stringify(messages.filter((message) => !to || message.to === to)));
  }
  response.statusCode = 404;
  response.end("{}");
});

const { smtpPort, readerPort } = mailPorts();
smtp.listen(smtpPort, "127.0.0.1", () => {
  reader.listen(readerPort, "127.0.0.1", () =>
    console.log(`mail sink: SMTP on 127.0.0.1:${smtpPort}, messages on http://127.0.0.1:${readerPort}/messages`),
  );
});
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    reader.close();
    smtp.close(() => process.exit(0));
  });
}
