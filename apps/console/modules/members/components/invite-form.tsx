"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { authClient } from "@/modules/auth/lib/auth-client";

export function invitationLink(id: string): string {
  return `${window.location.origin}/invite/${id}`;
}

/**
 * Invites by email and role. The invitation is e-mailed (its link proves the address, so the
 * invitee confirms nothing else); the inviter can also copy the plain link, and a sign-up
 * through that one confirms the address by mail.
 */
export function InviteForm({ organizationId }: { organizationId: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [link, setLink] = useState<string | null>(null);
  const [invitedEmail, setInvitedEmail] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    setPending(true);
    setError(null);
    const invited = await authClient.organization.inviteMember({
      organizationId,
      email,
      role: String(form.get("role")) as "admin" | "viewer",
    });
    setPending(false);
    if (invited.error || !invited.data) return setError(invited.error?.message ?? "Could not create the invitation.");
    setLink(invitationLink(invited.data.id));
    setInvitedEmail(email);
    router.refresh();
  }

  return (
    <div className="grid gap-4">
      <form
        onSubmit={submit}
        className="grid gap-4 sm:grid-cols-[1fr_10rem_auto] sm:items-end"
        aria-label="Invite a teammate"
        data-testid="invite-form"
      >
        <Field label="Email" id="invite-email" name="email" type="email" required />
        <div className="grid gap-1.5">
          <Label htmlFor="invite-role">Role</Label>
          <Select id="invite-role" name="role" defaultValue="viewer">
            <option value="viewer">Viewer</option>
            <option value="admin">Admin</option>
            <option value="owner">Owner</option>
          </Select>
        </div>
        <Button type="submit" disabled={pending} data-testid="invite-submit">
          {pending ? "Inviting…" : "Send invitation"}
        </Button>
      </form>
      <FormError message={error} />
      {link ? (
        <div className="grid gap-2 rounded-lg border border-primary/30 bg-primary/5 p-4">
          <p className="text-sm" data-testid="invitation-sent">
            We e-mailed the invitation to <span className="font-medium">{invitedEmail}</span>; it is valid for 7 days. You can also send
            them this link (signing up through it, they confirm their address by mail):
          </p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <code className="min-w-0 flex-1 truncate rounded bg-muted px-3 py-2 text-sm" data-testid="invitation-link">
              {link}
            </code>
            <CopyButton value={link} label="Copy link" />
          </div>
        </div>
      ) : null}
    </div>
  );
}
