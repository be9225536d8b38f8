"use client";
import { Lightbulb } from "lucide-react";
import { useState } from "react";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/form-error";
import { fetchJson } from "@/lib/fetch-json";
import type { RecommendationView } from "../types/recommendation";
import { RecommendationCard, type RecommendationAction } from "./recommendation-card";

/** Recommendations of the fleet (showServer) or of one server, with Apply / Snooze / Dismiss / Reopen. */
export function RecommendationsList({ initial, serverId, canAct }: { initial: RecommendationView[]; serverId?: string; canAct: boolean }) {
  const [items, setItems] = useState(initial);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function act(id: string, action: RecommendationAction) {
    setError(null);
    setBusy(id);
    try {
      const path = action === "apply-rollout" ? "apply" : action;
      const body = action === "snooze" ? { days: 7 } : action === "apply-rollout" ? { delivery: { mode: "rollout" } } : undefined;
      await fetchJson(`/api/recommendations/${id}/${path}`, { method: "POST", body: body ? JSON.stringify(body) : undefined });
      const query = serverId ? `?serverId=${serverId}` : "";
      setItems(
        (await fetchJson<{ recommendations: RecommendationView[] }>(`/api/recommendations${query}`, { cache: "no-store" })).recommendations,
      );
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="grid gap-4" data-testid="recommendations">
      <FormError message={error} />
      {items.length === 0 ? (
        <EmptyState
          icon={Lightbulb}
          title="No recommendations"
          data-testid="recommendations-empty"
          description="The worker looks at miss-ratio curves, spare memory, scans, fragmentation and capabilities every 15 minutes; a recommendation appears when the evidence supports a change with a predicted effect."
        />
      ) : (
        items.map((r) => (
          <RecommendationCard
            key={r.id}
            recommendation={r}
            showServer={serverId === undefined}
            canAct={canAct}
            busy={busy === r.id}
            onAction={(action) => act(r.id, action)}
          />
        ))
      )}
    </div>
  );
}
