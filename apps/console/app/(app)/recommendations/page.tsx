import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { RecommendationsList } from "@/modules/recommendations/components/recommendations-list";
import { listRecommendations } from "@/modules/recommendations/lib/list-recommendations";

export const metadata: Metadata = { title: "Recommendations" };

export default async function RecommendationsPage() {
  const context = await pageContext();
  const recommendations = await listRecommendations(database(), context.orgId);
  return (
    <>
      <PageHeader
        title="Recommendations"
        description="What to change on each server, why, what it is predicted to buy and how sure that is. Apply saves a new version of the server's own policy; the realised effect appears beside the prediction a window after the agent applies it."
      />
      <RecommendationsList initial={recommendations} canAct={can(context.role, { recommendation: ["apply"] })} />
    </>
  );
}
