import type { Metadata } from "next";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { RolloutSettingForm } from "@/modules/rollouts/components/rollout-setting-form";
import { getRolloutSettings } from "@/modules/rollouts/lib/rollout-settings";

export const metadata: Metadata = { title: "Rollout settings" };

export default async function RolloutSettingsPage() {
  const context = await pageContext();
  const { rolloutsRequired } = await getRolloutSettings(database(), context.orgId);
  return (
    <>
      <PageHeader title="Rollout settings" description="How policy changes reach the servers of this organisation." />
      <Card>
        <CardHeader>
          <CardTitle>Every wide change is a rollout</CardTitle>
          <CardDescription>
            When on, a change that reaches servers through the organisation default, a tag or several servers goes out in waves behind
            guards, unless an owner or admin chooses “Apply now” for it (recorded in the audit log). Only owners switch this.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <RolloutSettingForm rolloutsRequired={rolloutsRequired} canChange={can(context.role, { rollout: ["settings"] })} />
        </CardContent>
      </Card>
    </>
  );
}
