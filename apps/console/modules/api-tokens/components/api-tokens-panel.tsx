"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime } from "@/lib/format";
import type { ApiTokenSummary } from "../types/api-token";

const statusVariant = { active: "success", revoked: "secondary", expired: "warning" } as const;

async function problemOf(response: Response, fallback: string): Promise<string> {
  const problem = (await response.json().catch(() => ({}))) as { detail?: string; errors?: { message: string }[] };
  return problem.errors?.map((e) => e.message).join("; ") || problem.detail || fallback;
}

/** Create a token (its secret shown once, with a first request to try), list and revoke them. */
export function ApiTokensPanel({
  tokens,
  userId,
  canCreateAdmin,
  canRevokeAny,
  consoleUrl,
}: {
  tokens: ApiTokenSummary[];
  userId: string;
  canCreateAdmin: boolean;
  canRevokeAny: boolean;
  consoleUrl: string;
}) {
  const router = useRouter();
  const [created, setCreated] = useState<(ApiTokenSummary & { secret: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const target = event.currentTarget;
    const form = new FormData(target);
    setPending(true);
    setError(null);
    const response = await fetch("/api/api-tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: String(form.get("token-name") ?? ""),
        role: form.get("token-role"),
        expiresInDays: Number(form.get("token-expiry")),
      }),
    });
    setPending(false);
    if (!response.ok) return setError(await problemOf(response, "Could not create the token."));
    setCreated(((await response.json()) as { token: ApiTokenSummary & { secret: string } }).token);
    target.reset();
    router.refresh();
  }

  async function revoke(id: string) {
    setError(null);
    const response = await fetch(`/api/api-tokens/${id}`, { method: "DELETE" });
    if (!response.ok) return setError(await problemOf(response, "Could not revoke the token."));
    if (created?.id === id) setCreated(null);
    router.refresh();
  }

  const example = created ? `curl -H "Authorization: Bearer ${created.secret}" ${consoleUrl}/api/servers` : "";
  return (
    <div className="grid gap-6">
      <form
        onSubmit={create}
        className="grid gap-4 sm:grid-cols-[1fr_10rem_10rem_auto] sm:items-end"
        data-testid="create-api-token-form"
        aria-label="Create an API token"
      >
        <Field label="Token name" id="token-name" required maxLength={64} placeholder="terraform, ci, grafana…" />
        <div className="grid gap-1.5">
          <Label htmlFor="token-role">Role</Label>
          <Select id="token-role" name="token-role" defaultValue="viewer">
            <option value="viewer">Viewer (read only)</option>
            {canCreateAdmin ? <option value="admin">Admin</option> : null}
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="token-expiry">Expires after</Label>
          <Select id="token-expiry" name="token-expiry" defaultValue="90">
            <option value="7">7 days</option>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
            <option value="180">180 days</option>
            <option value="365">1 year</option>
          </Select>
        </div>
        <Button type="submit" disabled={pending} data-testid="create-api-token">
          {pending ? "Creating…" : "Create token"}
        </Button>
      </form>
      <FormError message={error} />

      {created ? (
        <div className="grid gap-2 rounded-lg border border-primary/30 bg-primary/5 p-4" data-testid="api-token-created">
          <p className="text-sm font-medium">
            Copy the token “{created.name}” now: Spindle keeps only its hash and will not show it again.
          </p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <code className="min-w-0 flex-1 break-all rounded bg-muted px-3 py-2 text-sm" data-testid="api-token-secret">
              {created.secret}
            </code>
            <CopyButton value={created.secret} label="Copy token" />
          </div>
          <p className="text-sm text-muted-foreground">Try it:</p>
          <code className="break-all rounded bg-muted px-3 py-2 text-xs" data-testid="api-token-example">
            {example}
          </code>
        </div>
      ) : null}

      {tokens.length === 0 ? (
        <p className="text-sm text-muted-foreground" data-testid="api-tokens-empty">
          No API tokens yet.
        </p>
      ) : (
        <Table data-testid="api-token-list">
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Token</TableHead>
              <TableHead>Role</TableHead>
              <TableHead>Status</TableHead>
              <TableHead className="hidden md:table-cell">Last used</TableHead>
              <TableHead className="hidden md:table-cell">Expires</TableHead>
              <TableHead className="w-0" />
            </TableRow>
          </TableHeader>
          <TableBody>
            {tokens.map((token) => (
              <TableRow key={token.id} data-testid="api-token-row" data-name={token.name} data-status={token.status}>
                <TableCell>
                  <div className="font-medium">{token.name}</div>
                  <div className="text-xs text-muted-foreground">
                    <code>{token.start}…</code> · by {token.createdBy?.name ?? "a former member"} · {formatDateTime(token.createdAt)}
                  </div>
                </TableCell>
                <TableCell className="capitalize">{token.role}</TableCell>
                <TableCell>
                  <Badge variant={statusVariant[token.status]} data-testid="api-token-status">
                    {token.status}
                  </Badge>
                </TableCell>
                <TableCell className="hidden text-muted-foreground md:table-cell" data-testid="api-token-last-used">
                  {token.lastUsedAt ? formatDateTime(token.lastUsedAt) : "never"}
                </TableCell>
                <TableCell className="hidden text-muted-foreground md:table-cell">
                  {token.expiresAt ? formatDateTime(token.expiresAt) : "never"}
                </TableCell>
                <TableCell>
                  {token.status === "active" && (canRevokeAny || token.createdBy?.id === userId) ? (
                    <Button
                      variant="outline"
                      size="sm"
                      onClick={() => revoke(token.id)}
                      data-testid="revoke-api-token"
                      aria-label={`Revoke ${token.name}`}
                    >
                      Revoke
                    </Button>
                  ) : null}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <p className="text-sm text-muted-foreground">
        Send a token as <code>Authorization: Bearer &lt;token&gt;</code> to any <code>/api</code> route. It acts for you, with the lesser of
        its role and yours, and stops working if you leave the organisation. See the{" "}
        <Link href="/api-reference" className="text-primary hover:underline">
          API reference
        </Link>
        .
      </p>
    </div>
  );
}
