import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { AlertsTabs } from "@/modules/alerts/components/alerts-tabs";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";
import { ChannelsView } from "@/modules/channels/components/channels-view";
import { listChannelSummaries } from "@/modules/channels/lib/channels";

export const metadata: Metadata = { title: "Notification channels" };

export default async function ChannelsPage() {
  const context = await pageContext();
  const [channels, targets] = await Promise.all([
    listChannelSummaries(database(), context.orgId),
    listAlertTargets(database(), context.orgId),
  ]);
  return (
    <>
      <PageHeader
        title="Notification channels"
        description="Where alerts are sent, and which severities and servers go where. One notification per state change, through a durable outbox: an outage delays it, never loses or doubles it."
      />
      <AlertsTabs current="channels" />
      <ChannelsView initial={channels} servers={targets.servers} canManage={can(context.role, { notificationChannel: ["create"] })} />
    </>
  );
}
