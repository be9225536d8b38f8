"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { FormError } from "@/components/ui/form-error";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime } from "@/lib/format";
import { authClient } from "@/modules/auth/lib/auth-client";
import type { MemberView, PendingInvitationView } from "../types/members";

type Role = "owner" | "admin" | "viewer";

/** Members with their role; owners and admins change roles, remove members, cancel invitations. */
export function MemberList({
  organizationId,
  currentUserId,
  members,
  invitations,
  canManage,
}: {
  organizationId: string;
  currentUserId: string;
  members: MemberView[];
  invitations: PendingInvitationView[];
  canManage: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  async function run(key: string, action: () => Promise<{ error: { message?: string } | null }>) {
    setBusy(key);
    setError(null);
    const result = await action();
    setBusy(null);
    if (result.error) setError(result.error.message ?? "The change was refused.");
    router.refresh();
  }

  async function signOut(memberId: string) {
    const response = await fetch(`/api/members/${memberId}/sign-out`, { method: "POST" });
    if (response.ok) return { error: null };
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    return { error: { message: problem.detail ?? "The member could not be signed out." } };
  }

  return (
    <div className="grid gap-4">
      <FormError message={error} />
      <Table data-testid="member-list">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Member</TableHead>
            <TableHead>Role</TableHead>
            <TableHead className="hidden md:table-cell">Joined</TableHead>
            <TableHead className="w-0" />
          </TableRow>
        </TableHeader>
        <TableBody>
          {members.map((member) => (
            <TableRow key={member.id} data-testid="member-row" data-email={member.email}>
              <TableCell>
                <div className="font-medium">
                  {member.name}
                  {member.userId === currentUserId ? " (you)" : ""}
                </div>
                <div className="text-xs text-muted-foreground">{member.email}</div>
              </TableCell>
              <TableCell>
                {canManage && member.userId !== currentUserId ? (
                  <Select
                    aria-label={`Role of ${member.email}`}
                    className="w-32"
                    value={member.role}
                    disabled={busy === member.id}
                    onChange={(event) =>
                      run(member.id, () =>
                        authClient.organization.updateMemberRole({ organizationId, memberId: member.id, role: event.target.value as Role }),
                      )
                    }
                  >
                    <option value="owner">Owner</option>
                    <option value="admin">Admin</option>
                    <option value="viewer">Viewer</option>
                  </Select>
                ) : (
                  <Badge variant="secondary" className="capitalize">
                    {member.role}
                  </Badge>
                )}
              </TableCell>
              <TableCell className="hidden text-muted-foreground md:table-cell">{formatDateTime(member.joinedAt)}</TableCell>
              <TableCell>
                {canManage && member.userId !== currentUserId ? (
                  <div className="flex gap-2">
                    <Button
                      variant="outline"
                      size="sm"
                      disabled={busy === member.id}
                      aria-label={`Sign out ${member.email}`}
                      data-testid="sign-out-member"
                      onClick={() => run(member.id, () => signOut(member.id))}
                    >
                      Sign out
                    </Button>
                    <Button
                      variant="outline"
                      size="sm"
                      disabled={busy === member.id}
                      aria-label={`Remove ${member.email}`}
                      onClick={() =>
                        run(member.id, () => authClient.organization.removeMember({ organizationId, memberIdOrEmail: member.id }))
                      }
                    >
                      Remove
                    </Button>
                  </div>
                ) : null}
              </TableCell>
            </TableRow>
          ))}
          {invitations.map((invitation) => (
            <TableRow key={invitation.id} data-testid="invitation-row" data-email={invitation.email}>
              <TableCell>
                <div className="font-medium">{invitation.email}</div>
                <div className="text-xs text-muted-foreground">Invited · expires {formatDateTime(invitation.expiresAt)}</div>
              </TableCell>
              <TableCell>
                <Badge variant="warning" className="capitalize">
                  {invitation.role} (pending)
                </Badge>
              </TableCell>
              <TableCell className="hidden md:table-cell" />
              <TableCell>
                {canManage ? (
                  <div className="flex gap-2">
                    <CopyButton
                      value={`${typeof window === "undefined" ? "" : window.location.origin}/invite/${invitation.id}`}
                      label="Copy link"
                    />
                    <Button
                      variant="outline"
                      size="sm"
                      disabled={busy === invitation.id}
                      onClick={() => run(invitation.id, () => authClient.organization.cancelInvitation({ invitationId: invitation.id }))}
                    >
                      Cancel
                    </Button>
                  </div>
                ) : null}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
