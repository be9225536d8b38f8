"use client";
import { MailCheck } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";

/** After sign-up: where the confirmation link went, and a way to send it again. */
export function CheckInbox({ email, callbackURL }: { email: string; callbackURL: string }) {
  const [resent, setResent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function resend() {
    setError(null);
    const sent = await authClient.sendVerificationEmail({ email, callbackURL });
    if (sent.error) return setError(authErrorMessage(sent.error, "Could not send the link again."));
    setResent(true);
  }
  return (
    <div className="grid gap-4" data-testid="check-inbox">
      <div className="flex items-start gap-3">
        <MailCheck className="mt-0.5 size-5 text-primary" aria-hidden />
        <div className="grid gap-1 text-sm">
          <p className="font-medium">Check your inbox</p>
          <p className="text-muted-foreground">
            We sent a confirmation link to{" "}
            <span className="font-medium text-foreground" data-testid="check-inbox-email">
              {email}
            </span>
            . Open it to finish creating your account; it works for 24 hours.
          </p>
        </div>
      </div>
      <FormError message={error} />
      <Button variant="outline" onClick={resend} disabled={resent} data-testid="resend-verification">
        {resent ? "Sent again" : "Send the link again"}
      </Button>
    </div>
  );
}
