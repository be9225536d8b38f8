// Reading the console's mail in a journey: what the mail sink (mail-sink.ts) received.
import { expect } from "@playwright/test";
import { mailPorts } from "./mail-ports";
import type { ReceivedMessage } from "./mime";

export type { ReceivedMessage };

export function mailboxUrl(): string {
  return `http://127.0.0.1:${mailPorts().readerPort}`;
}

export async function messagesTo(address: string): Promise<ReceivedMessage[]> {
  const response = await fetch(`${mailboxUrl()}/messages?to=${encodeURIComponent(address)}`);
  return (await response.json()) as ReceivedMessage[];
}

/** Waits for a message of `kind` (the X-Spindle-Mail header) to `address`, newer than `after`. */
export async function waitForMail(address: string, kind: string, after = -1): Promise<ReceivedMessage> {
  let found: ReceivedMessage | undefined;
  await expect(async () => {
    found = (await messagesTo(address)).filter((message) => message.kind === kind && message.index > after).at(-1);
    expect(found, `a ${kind} message to ${address}`).toBeTruthy();
  }).toPass({ timeout: 30_000 });
  return found!;
}

/** The index of the newest message so far: later waits look only at what arrives after it. */
export async function lastMailIndex(): Promise<number> {
  const response = await fetch(`${mailboxUrl()}/messages`);
  const all = (await response.json()) as ReceivedMessage[];
  return all.at(-1)?.index ?? -1;
}

/** The link of a message that starts with `prefix` (e.g. the console's URL). */
export function linkIn(message: ReceivedMessage, pattern: RegExp): string {
  const link = message.links.find((candidate) => pattern.test(candidate));
  if (!link) throw new Error(`no link matching ${pattern} in “${message.subject}”: ${message.links.join(", ")}`);
  return link;
}
