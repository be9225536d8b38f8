"use client";
import { useCallback, useEffect, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "@/modules/auth/lib/auth-client";
import { describeSignInMethod } from "@/modules/auth/lib/sign-in-method";

interface SessionRow {
  id: string;
  token: string;
  createdAt: Date | string;
  updatedAt: Date | string;
  ipAddress?: string | null;
  userAgent?: string | null;
  signInMethod?: string | null;
}

const when = (value: Date | string) => new Date(value).toLocaleString();

/** The user's own sessions: where and how each was opened, and sign-out of any but this one. */
export function SessionsPanel({ currentSessionId }: { currentSessionId: string }) {
  const [sessions, setSessions] = useState<SessionRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const listed = await authClient.listSessions();
    if (listed.error) return setError(authErrorMessage(listed.error, "Could not list your sessions."));
    setSessions((listed.data as SessionRow[]).sort((a, b) => +new Date(b.createdAt) - +new Date(a.createdAt)));
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function revoke(token: string) {
    setError(null);
    const revoked = await authClient.revokeSession({ token });
    if (revoked.error) return setError(authErrorMessage(revoked.error, "Could not sign that session out."));
    await load();
  }

  async function revokeOthers() {
    setError(null);
    const revoked = await authClient.revokeOtherSessions();
    if (revoked.error) return setError(authErrorMessage(revoked.error, "Could not sign the other sessions out."));
    await load();
  }

  return (
    <div className="grid gap-3">
      <FormError message={error} />
      <ul className="divide-y rounded-md border" data-testid="session-list">
        {(sessions ?? []).map((session) => {
          const current = session.id === currentSessionId;
          return (
            <li
              key={session.id}
              className="flex flex-wrap items-center justify-between gap-3 p-3 text-sm"
              data-testid="session-row"
              data-current={String(current)}
            >
              <div className="grid gap-0.5">
                <div className="font-medium">
                  {session.userAgent || "Unknown browser"} {current ? <Badge className="ml-1">this browser</Badge> : null}
                </div>
                <div className="text-xs text-muted-foreground">
                  Signed in {when(session.createdAt)} from {session.ipAddress || "an unknown address"} with{" "}
                  {describeSignInMethod(session.signInMethod)}; last active {when(session.updatedAt)}
                </div>
              </div>
              {current ? null : (
                <Button variant="outline" size="sm" onClick={() => revoke(session.token)} data-testid="revoke-session">
                  Sign out
                </Button>
              )}
            </li>
          );
        })}
        {sessions === null ? <li className="p-3 text-sm text-muted-foreground">Loading…</li> : null}
      </ul>
      {sessions && sessions.length > 1 ? (
        <div>
          <Button variant="outline" onClick={revokeOthers} data-testid="revoke-other-sessions">
            Sign out everywhere else
          </Button>
        </div>
      ) : null}
    </div>
  );
}
