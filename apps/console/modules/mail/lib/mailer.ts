// The console process's mail transport, built once from the environment, and the one way the
// rest of the console sends: deliver() never throws (a mail server outage must not turn a
// password-reset answer into an error that tells whether the address exists); it logs instead.
import { env } from "@/lib/env";
import type { OutgoingMail } from "../types/mail";
import { createMailTransport, type MailTransport } from "./mail-transport";

const holder = globalThis as unknown as { spindleMailer?: MailTransport };

export function mailFrom(): string {
  const { SPINDLE_MAIL_FROM, SPINDLE_CONSOLE_URL } = env();
  return SPINDLE_MAIL_FROM ?? `Spindle <no-reply@${new URL(SPINDLE_CONSOLE_URL).hostname}>`;
}

export function mailer(): MailTransport {
  if (!holder.spindleMailer) {
    const { SPINDLE_SMTP_URL, SPINDLE_MAILBOX_DIR } = env();
    holder.spindleMailer = createMailTransport({ smtpUrl: SPINDLE_SMTP_URL, from: mailFrom(), mailboxDir: SPINDLE_MAILBOX_DIR });
    if (holder.spindleMailer.isLocalMailbox) {
      console.warn(
        `spindle-console: SPINDLE_SMTP_URL is not set, so no e-mail leaves this machine: messages are written to the local mailbox ${holder.spindleMailer.destination} (npm run mailbox lists them)`,
      );
    }
  }
  return holder.spindleMailer;
}

/** Sends, or logs why it could not; resolves either way. */
export async function deliver(mail: OutgoingMail): Promise<boolean> {
  try {
    await mailer().send(mail);
    return true;
  } catch (error) {
    console.error(
      `spindle-console: could not send the ${mail.kind} message to ${mail.to} through ${mailer().destination}: ${(error as Error).message}`,
    );
    return false;
  }
}

/** Sends in the background: the answer to the request does not wait for (or reveal) delivery. */
export function deliverLater(mail: OutgoingMail): void {
  void deliver(mail);
}
