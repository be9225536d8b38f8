import type { Metadata } from "next";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { database, identityTables } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { InviteForm } from "@/modules/members/components/invite-form";
import { MemberList } from "@/modules/members/components/member-list";
import { listMembers } from "@/modules/members/lib/list-members";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  const context = await pageContext();
  const { members, invitations } = await listMembers(identityTables(database()), context.orgId);
  const canManage = can(context.role, { member: ["update"] });
  return (
    <>
      <PageHeader
        title="Members"
        description={`Who can see ${context.orgName}. Owners and admins add servers and manage members; viewers read everything and change nothing.`}
      />
      <div className="grid gap-6">
        {canManage ? (
          <Card>
            <CardHeader>
              <CardTitle>Invite a teammate</CardTitle>
              <CardDescription>We e-mail them a link; they create an account (or sign in) and join with the role you pick.</CardDescription>
            </CardHeader>
            <CardContent>
              <InviteForm organizationId={context.orgId} />
            </CardContent>
          </Card>
        ) : null}
        <Card>
          <CardHeader>
            <CardTitle>Members</CardTitle>
          </CardHeader>
          <CardContent>
            <MemberList
              organizationId={context.orgId}
              currentUserId={context.userId}
              members={members}
              invitations={invitations}
              canManage={canManage}
            />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
