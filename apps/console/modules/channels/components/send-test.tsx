"use client";
import { Send } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { fetchJson } from "@/lib/fetch-json";
import type { DeliveryStatus } from "../types/channels";

const settled = new Set(["sent", "failed", "suppressed"]);

/** "Send test": queued through the real outbox; shows the delivery as the worker reports it. */
export function SendTestButton({ channelId }: { channelId: string }) {
  const [notificationId, setNotificationId] = useState<string | null>(null);
  const [delivery, setDelivery] = useState<DeliveryStatus | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!notificationId) return;
    let stop = false;
    const poll = async () => {
      try {
        const { notification } = await fetchJson<{ notification: DeliveryStatus }>(`/api/alerts/notifications/${notificationId}`, {
          cache: "no-store",
        });
        if (stop) return;
        setDelivery(notification);
        if (!settled.has(notification.status)) setTimeout(poll, 1000);
      } catch (failure) {
        if (!stop) setError(failure instanceof Error ? failure.message : String(failure));
      }
    };
    void poll();
    return () => {
      stop = true;
    };
  }, [notificationId]);

  async function send() {
    setError(null);
    setDelivery(null);
    try {
      setNotificationId(
        (await fetchJson<{ notificationId: string }>(`/api/alerts/channels/${channelId}/test`, { method: "POST" })).notificationId,
      );
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }

  const busy = notificationId !== null && (delivery === null || !settled.has(delivery.status)) && error === null;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <Button variant="outline" size="sm" onClick={send} disabled={busy} data-testid="send-test">
        <Send /> Send test
      </Button>
      {error ? (
        <span className="text-destructive" data-testid="test-result" data-status="error">
          {error}
        </span>
      ) : null}
      {delivery ? (
        <span
          data-testid="test-result"
          data-status={delivery.status}
          className={
            delivery.status === "sent" ? "text-success" : delivery.status === "failed" ? "text-destructive" : "text-muted-foreground"
          }
        >
          {delivery.status === "sent"
            ? "Delivered"
            : delivery.status === "failed"
              ? "Failed"
              : delivery.status === "suppressed"
                ? "Suppressed"
                : "Queued, waiting for the worker…"}
          {delivery.attempts > 0 ? ` after ${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}` : ""}
          {delivery.lastError ? `: ${delivery.lastError}` : ""}
          {delivery.status === "pending" && delivery.attempts > 0
            ? ` (retrying at ${new Date(delivery.nextAttemptAt).toLocaleTimeString()})`
            : ""}
        </span>
      ) : null}
    </div>
  );
}
