import { Inbox } from "lucide-react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { mailer } from "../lib/mailer";

/** On the pages that send mail: says plainly when this install has no mail server. */
export function LocalMailboxNotice() {
  const transport = mailer();
  if (!transport.isLocalMailbox) return null;
  return (
    <Alert data-testid="local-mailbox-notice" className="border-amber-300 bg-amber-50 text-amber-950">
      <Inbox />
      <AlertTitle>Local mailbox: no e-mail leaves this machine</AlertTitle>
      <AlertDescription>
        This console has no mail server (<code>SPINDLE_SMTP_URL</code> is not set). Messages are written as <code>.eml</code> files to{" "}
        <code className="break-all">{transport.destination}</code> on the console&apos;s machine; <code>npm run mailbox</code> lists them.
      </AlertDescription>
    </Alert>
  );
}
