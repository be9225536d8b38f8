"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import type { OrganisationSecurity } from "../types/sso";

async function send(method: string, path: string, body?: unknown): Promise<string | null> {
  const response = await fetch(path, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (response.ok) return null;
  const problem = (await response.json().catch(() => ({}))) as {
    detail?: string;
    title?: string;
    errors?: { path: string; message: string }[];
  };
  return problem.errors?.map((e) => `${e.path}: ${e.message}`).join("; ") || problem.detail || problem.title || "The change was refused.";
}

/** Require MFA of password sign-ins. */
export function RequireMfaSetting({ requireMfa, canEdit }: { requireMfa: boolean; canEdit: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function toggle() {
    setPending(true);
    setError(await send("PATCH", "/api/organization/security", { requireMfa: !requireMfa }));
    setPending(false);
    router.refresh();
  }
  return (
    <div className="grid gap-3">
      <div className="flex items-center gap-2 text-sm" data-testid="require-mfa-status" data-required={String(requireMfa)}>
        Two-factor authentication is <Badge variant={requireMfa ? "default" : "secondary"}>{requireMfa ? "required" : "optional"}</Badge>{" "}
        for members who sign in with a password.
      </div>
      <FormError message={error} />
      {canEdit ? (
        <div>
          <Button variant="outline" onClick={toggle} disabled={pending} data-testid="toggle-require-mfa">
            {requireMfa ? "Make it optional" : "Require two-factor authentication"}
          </Button>
        </div>
      ) : null}
    </div>
  );
}

/** The organisation's OIDC provider: read-only for admins and viewers, editable by owners. */
export function SsoSettingsForm({ security, canEdit }: { security: OrganisationSecurity; canEdit: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [pending, setPending] = useState(false);
  const sso = security.sso;

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const secret = String(form.get("sso-client-secret") ?? "");
    setPending(true);
    setSaved(false);
    const refused = await send("PUT", "/api/organization/sso", {
      issuer: String(form.get("sso-issuer") ?? ""),
      clientId: String(form.get("sso-client-id") ?? ""),
      ...(secret ? { clientSecret: secret } : {}),
      domain: String(form.get("sso-domain") ?? ""),
      defaultRole: form.get("sso-default-role"),
      enforced: form.get("sso-enforced") === "on",
    });
    setPending(false);
    setError(refused);
    if (!refused) setSaved(true);
    router.refresh();
  }

  async function remove() {
    setPending(true);
    setError(await send("DELETE", "/api/organization/sso"));
    setPending(false);
    router.refresh();
  }

  return (
    <div
      className="grid gap-4"
      data-testid="sso-settings"
      data-configured={String(Boolean(sso))}
      data-enforced={String(Boolean(sso?.enforced))}
    >
      <div className="grid gap-1.5 text-sm">
        <span className="text-muted-foreground">Redirect URI to register at your identity provider</span>
        <div className="flex items-center gap-2">
          <code className="break-all rounded bg-muted px-2 py-1" data-testid="sso-redirect-uri">
            {sso?.redirectUri ?? security.redirectUri}
          </code>
          <CopyButton value={sso?.redirectUri ?? security.redirectUri} label="Copy redirect URI" />
        </div>
      </div>
      {canEdit ? (
        <form onSubmit={save} className="grid max-w-xl gap-4" data-testid="sso-form-settings" aria-label="Single sign-on settings">
          <Field
            label="Issuer URL"
            id="sso-issuer"
            type="url"
            required
            defaultValue={sso?.issuer}
            placeholder="https://login.example.com"
          />
          <Field label="Client ID" id="sso-client-id" required defaultValue={sso?.clientId} />
          <Field
            label="Client secret"
            id="sso-client-secret"
            type="password"
            autoComplete="off"
            required={!sso}
            hint={sso ? "Stored sealed; leave empty to keep it." : "Stored sealed; never shown again."}
          />
          <Field
            label="Allowed e-mail domain"
            id="sso-domain"
            required
            defaultValue={sso?.domain}
            placeholder="example.com"
            hint="Only addresses of this domain may sign in through the provider."
          />
          <div className="grid gap-1.5">
            <Label htmlFor="sso-default-role">Role of members who join by single sign-on</Label>
            <Select id="sso-default-role" name="sso-default-role" defaultValue={sso?.defaultRole ?? "viewer"}>
              <option value="viewer">Viewer</option>
              <option value="admin">Admin</option>
            </Select>
          </div>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              name="sso-enforced"
              defaultChecked={sso?.enforced}
              className="mt-0.5 size-4"
              data-testid="sso-enforced"
            />
            <span>
              Require single sign-on: members other than owners can no longer sign in with a password. Owners keep theirs, as the way back
              in.
            </span>
          </label>
          <FormError message={error} />
          {saved && !error ? (
            <p className="text-sm text-emerald-700" data-testid="sso-saved">
              Saved. Members can now sign in with single sign-on.
            </p>
          ) : null}
          <div className="flex gap-2">
            <Button type="submit" disabled={pending} data-testid="save-sso">
              {pending ? "Checking the provider…" : "Save"}
            </Button>
            {sso ? (
              <Button variant="outline" onClick={remove} disabled={pending} data-testid="remove-sso">
                Remove single sign-on
              </Button>
            ) : null}
          </div>
        </form>
      ) : sso ? (
        <dl className="grid grid-cols-[12rem_1fr] gap-2 text-sm">
          <dt className="text-muted-foreground">Issuer</dt>
          <dd>{sso.issuer}</dd>
          <dt className="text-muted-foreground">Allowed domain</dt>
          <dd>{sso.domain}</dd>
          <dt className="text-muted-foreground">New members join as</dt>
          <dd className="capitalize">{sso.defaultRole}</dd>
          <dt className="text-muted-foreground">Required</dt>
          <dd>{sso.enforced ? "yes" : "no"}</dd>
        </dl>
      ) : (
        <p className="text-sm text-muted-foreground">Single sign-on is not set up. Owners set it up here.</p>
      )}
    </div>
  );
}
