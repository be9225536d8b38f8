"use client";
import { ShieldCheck, ShieldOff } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "@/modules/auth/lib/auth-client";
import { groupSecret, totpSecretOf } from "../lib/totp-uri";
import { QrCode } from "./qr-code";

type Step =
  | { kind: "idle" }
  | { kind: "password"; next: "enable" | "disable" | "codes" }
  | { kind: "scan"; uri: string; codes: string[] }
  | { kind: "codes"; codes: string[]; justEnabled: boolean };

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="grid gap-2">
      <ul className="grid grid-cols-2 gap-1 rounded-md border bg-muted/40 p-3 font-mono text-sm" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code} data-testid="recovery-code">
            {code}
          </li>
        ))}
      </ul>
      <div>
        <CopyButton value={codes.join("\n")} label="Copy the recovery codes" />
      </div>
      <p className="text-xs text-muted-foreground">
        Each code signs you in once if you lose your phone. Keep them somewhere safe, apart from your password.
      </p>
    </div>
  );
}

/** Turn TOTP two-factor authentication on (scan, confirm with a code, save recovery codes) or off. */
export function TwoFactorPanel({ enabled, hasPassword }: { enabled: boolean; hasPassword: boolean }) {
  const router = useRouter();
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function withPassword(event: FormEvent<HTMLFormElement>, then: "enable" | "disable" | "codes") {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get("password") ?? "");
    setPending(true);
    setError(null);
    if (then === "enable") {
      const started = await authClient.twoFactor.enable({ password });
      setPending(false);
      if (started.error || !started.data) return setError(authErrorMessage(started.error, "Could not start."));
      const data = started.data as { totpURI?: string; backupCodes?: string[] };
      return setStep({ kind: "scan", uri: data.totpURI ?? "", codes: data.backupCodes ?? [] });
    }
    if (then === "disable") {
      const disabled = await authClient.twoFactor.disable({ password });
      setPending(false);
      if (disabled.error) return setError(authErrorMessage(disabled.error, "Could not turn it off."));
      setStep({ kind: "idle" });
      return router.refresh();
    }
    const generated = await authClient.twoFactor.generateBackupCodes({ password });
    setPending(false);
    if (generated.error || !generated.data) return setError(authErrorMessage(generated.error, "Could not make new codes."));
    setStep({ kind: "codes", codes: generated.data.backupCodes, justEnabled: false });
  }

  async function confirm(event: FormEvent<HTMLFormElement>, codes: string[]) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get("code") ?? "").replace(/\s+/g, "");
    setPending(true);
    setError(null);
    const verified = await authClient.twoFactor.verifyTotp({ code });
    setPending(false);
    if (verified.error) return setError(authErrorMessage(verified.error, "Could not check the code."));
    setStep({ kind: "codes", codes, justEnabled: true });
  }

  return (
    <div className="grid gap-4" data-testid="two-factor-panel">
      <div className="flex items-center gap-2 text-sm" data-testid="mfa-status" data-enabled={String(enabled)}>
        {enabled ? (
          <ShieldCheck className="size-4 text-emerald-600" aria-hidden />
        ) : (
          <ShieldOff className="size-4 text-muted-foreground" aria-hidden />
        )}
        Two-factor authentication is <Badge variant={enabled ? "default" : "secondary"}>{enabled ? "on" : "off"}</Badge>
      </div>
      {!hasPassword ? (
        <p className="text-sm text-muted-foreground">You sign in with single sign-on: your identity provider asks for the second factor.</p>
      ) : null}

      {step.kind === "idle" && hasPassword ? (
        <div className="flex flex-wrap gap-2">
          {enabled ? (
            <>
              <Button variant="outline" onClick={() => setStep({ kind: "password", next: "codes" })} data-testid="new-recovery-codes">
                New recovery codes
              </Button>
              <Button variant="outline" onClick={() => setStep({ kind: "password", next: "disable" })} data-testid="disable-mfa">
                Turn off
              </Button>
            </>
          ) : (
            <Button onClick={() => setStep({ kind: "password", next: "enable" })} data-testid="enable-mfa">
              Turn on two-factor authentication
            </Button>
          )}
        </div>
      ) : null}

      {step.kind === "password" ? (
        <form onSubmit={(event) => withPassword(event, step.next)} className="grid max-w-sm gap-3" data-testid="mfa-password-form">
          <Field
            label="Your password"
            id="password"
            type="password"
            autoComplete="current-password"
            required
            hint="To confirm it is you."
          />
          <FormError message={error} />
          <div className="flex gap-2">
            <Button type="submit" disabled={pending} data-testid="mfa-password-submit">
              {pending ? "Checking…" : "Continue"}
            </Button>
            <Button
              variant="ghost"
              onClick={() => {
                setStep({ kind: "idle" });
                setError(null);
              }}
            >
              Cancel
            </Button>
          </div>
        </form>
      ) : null}

      {step.kind === "scan" ? (
        <form onSubmit={(event) => confirm(event, step.codes)} className="grid gap-3" data-testid="mfa-scan-form">
          <p className="text-sm">
            Scan this code with an authenticator app (1Password, Google Authenticator, Microsoft Authenticator, Aegis…), or type the setup
            key.
          </p>
          <QrCode value={step.uri} label="QR code for your authenticator app" />
          <div className="grid gap-1 text-sm">
            <span className="text-muted-foreground">Setup key</span>
            <code
              className="w-fit rounded bg-muted px-2 py-1 font-mono tracking-wider"
              data-testid="totp-secret"
              data-secret={totpSecretOf(step.uri)}
            >
              {groupSecret(totpSecretOf(step.uri))}
            </code>
          </div>
          <Field label="Code from the app" id="code" inputMode="numeric" autoComplete="one-time-code" required className="max-w-40" />
          <FormError message={error} />
          <div>
            <Button type="submit" disabled={pending} data-testid="confirm-mfa">
              {pending ? "Checking…" : "Turn on"}
            </Button>
          </div>
        </form>
      ) : null}

      {step.kind === "codes" ? (
        <div className="grid gap-3">
          <p className="text-sm font-medium">
            {step.justEnabled
              ? "Two-factor authentication is on. Save your recovery codes:"
              : "Your new recovery codes (the old ones no longer work):"}
          </p>
          <RecoveryCodes codes={step.codes} />
          <div>
            <Button
              onClick={() => {
                setStep({ kind: "idle" });
                router.refresh();
              }}
              data-testid="recovery-codes-saved"
            >
              I have saved them
            </Button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
