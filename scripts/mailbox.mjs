#!/usr/bin/env node
// Lists the console's local mailbox: the messages it wrote as .eml files because no SMTP server
// is configured (SPINDLE_SMTP_URL unset; `npm start` keeps them in .spindle/mailbox). Newest
// first, with recipient, subject and the links each message carries, so the operator can open
// a confirmation or reset link by hand.
//   npm run mailbox               the 10 newest messages
//   npm run mailbox -- --all      every message
//   npm run mailbox -- <address>  only messages to that address
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const dir = process.env.SPINDLE_MAILBOX_DIR ? resolve(process.env.SPINDLE_MAILBOX_DIR) : join(root, ".spindle/mailbox");
const args = process.argv.slice(2);
const all = args.includes("--all");
const address = args.find((arg) => !arg.startsWith("--"))?.toLowerCase();

let files;
try {
  files = readdirSync(dir).filter((name) => name.endsWith(".eml"));
} catch {
  console.log(`No local mailbox at ${dir}: nothing was sent yet, or the console sends through SMTP.`);
  process.exit(0);
}

function header(raw, name) {
  const match = new RegExp(`^${name}: (.*(?:\\n[ \\t].*)*)`, "mi").exec(raw);
  return match ? match[1].replace(/\n[ \t]+/g, " ").trim() : "";
}

/** The text/plain part (the messages are multipart/alternative), quoted-printable undone. */
function textBody(raw) {
  const boundary = /boundary="?([^";\n]+)"?/i.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  const plain = parts.find((part) => /^Content-Type: text\/plain/im.test(part)) ?? parts[0];
  const body = plain.split(/\n\n/).slice(1).join("\n\n");
  return body.replace(/=\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

const messages = files
  .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs, raw: readFileSync(join(dir, name), "utf8") }))
  .filter((message) => !address || header(message.raw, "To").toLowerCase().includes(address))
  .sort((a, b) => b.at - a.at)
  .slice(0, all ? undefined : 10);

console.log(`Local mailbox ${dir}: ${files.length} message(s)${address ? `, ${messages.length} to ${address}` : ""}\n`);
for (const message of messages) {
  const links = [...new Set(textBody(message.raw).match(/https?:\/\/[^\s"<>]+/g) ?? [])];
  console.log(`${new Date(message.at).toISOString()}  to ${header(message.raw, "To")}`);
  console.log(`  ${header(message.raw, "Subject")}`);
  for (const link of links) console.log(`  ${link}`);
  console.log(`  (${message.name})\n`);
}
