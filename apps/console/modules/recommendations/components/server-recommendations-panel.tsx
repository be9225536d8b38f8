import type { RecommendationView } from "../types/recommendation";
import { RecommendationsList } from "./recommendations-list";

export function ServerRecommendationsPanel({
  serverId,
  initial,
  canAct,
}: {
  serverId: string;
  initial: RecommendationView[];
  canAct: boolean;
}) {
  return (
    <section className="grid gap-2" data-testid="server-recommendations" aria-labelledby="server-recommendations-title">
      <h2 id="server-recommendations-title" className="text-lg font-semibold">
        Recommendations for this server
      </h2>
      <RecommendationsList initial={initial} serverId={serverId} canAct={canAct} />
    </section>
  );
}
