"use client";
import { useState } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { fetchJson } from "@/lib/fetch-json";
import { usePolling } from "@/lib/use-polling";
import type { CreatedEnrollmentToken, EnrollmentTokenSummary } from "../types/enrollment-token";
import { CreateTokenForm } from "./create-token-form";
import { InstallCommand } from "./install-command";
import { TokenList } from "./token-list";

/** Create a token and its one-liner; list tokens with their uses (refreshed), and revoke them. */
export function EnrollmentPanel({ initialTokens, canManage }: { initialTokens: EnrollmentTokenSummary[]; canManage: boolean }) {
  const [created, setCreated] = useState<CreatedEnrollmentToken | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const tokens = usePolling<{ tokens: EnrollmentTokenSummary[] }>("/api/enrollment-tokens", { initial: { tokens: initialTokens } });

  async function revoke(id: string) {
    setRevoking(id);
    setRevokeError(null);
    try {
      await fetchJson(`/api/enrollment-tokens/${id}`, { method: "DELETE" });
      await tokens.refresh();
    } catch (failure) {
      setRevokeError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setRevoking(null);
    }
  }

  return (
    <div className="grid gap-6">
      {canManage ? (
        <Card>
          <CardHeader>
            <CardTitle>1. Create an install command</CardTitle>
            <CardDescription>
              It embeds a new enrolment token. A token enrols any number of servers until it expires or is revoked (the list counts its
              uses), so pick a short lifetime and revoke it once your servers are enrolled.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-5">
            <CreateTokenForm
              onCreated={(token) => {
                setCreated(token);
                void tokens.refresh();
              }}
            />
            {created ? <InstallCommand created={created} /> : null}
          </CardContent>
        </Card>
      ) : (
        <FormError message="Viewers cannot create enrolment tokens: ask an owner or admin of your organisation." />
      )}
      <Card>
        <CardHeader>
          <CardTitle>Enrolment tokens</CardTitle>
          <CardDescription>Revoking a token stops new enrolments with it; servers already enrolled keep reporting.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          <FormError message={revokeError ?? tokens.error} />
          <TokenList tokens={tokens.data?.tokens ?? []} canRevoke={canManage} onRevoke={revoke} revoking={revoking} />
        </CardContent>
      </Card>
    </div>
  );
}
