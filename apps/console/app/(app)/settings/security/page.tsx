import type { Metadata } from "next";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { RequireMfaSetting, SsoSettingsForm } from "@/modules/sso/components/security-settings";
import { getOrganisationSecurity } from "@/modules/sso/lib/sso-settings";

export const metadata: Metadata = { title: "Security" };

export default async function SecuritySettingsPage() {
  const context = await pageContext();
  const security = await getOrganisationSecurity(context.orgId);
  const canEdit = can(context.role, { security: ["update"] });
  return (
    <>
      <PageHeader title="Security" description={`How members sign in to ${context.orgName}. Owners change these settings.`} />
      <div className="grid gap-6">
        <Card>
          <CardHeader>
            <CardTitle>Two-factor authentication</CardTitle>
            <CardDescription>
              When required, a member who signs in with a password must turn on an authenticator app before the organisation opens to them.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <RequireMfaSetting requireMfa={security.requireMfa} canEdit={canEdit} />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Single sign-on (OpenID Connect)</CardTitle>
            <CardDescription>
              Members sign in with their company account. Someone from the allowed domain who is not a member yet joins on first sign-in
              with the role chosen below.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <SsoSettingsForm security={security} canEdit={canEdit} />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
