import type { Metadata } from "next";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { env } from "@/lib/env";
import { ApiTokensPanel } from "@/modules/api-tokens/components/api-tokens-panel";
import { listApiTokens } from "@/modules/api-tokens/lib/api-tokens";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";

export const metadata: Metadata = { title: "API tokens" };

export default async function ApiTokensPage() {
  const context = await pageContext();
  const tokens = await listApiTokens(context.orgId);
  return (
    <>
      <PageHeader title="API tokens" description={`Tokens for scripts, CI and Terraform to call the Spindle API in ${context.orgName}.`} />
      <Card>
        <CardHeader>
          <CardTitle>Tokens</CardTitle>
          <CardDescription>
            Each is shown once when created, expires, and can be revoked at any time; every change made with one is in the audit log.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <ApiTokensPanel
            tokens={tokens}
            userId={context.userId}
            canCreateAdmin={context.role !== "viewer"}
            canRevokeAny={can(context.role, { apiToken: ["revoke"] })}
            consoleUrl={env().SPINDLE_CONSOLE_URL}
          />
        </CardContent>
      </Card>
    </>
  );
}
