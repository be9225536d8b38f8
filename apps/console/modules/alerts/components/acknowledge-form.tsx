"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { fetchJson } from "@/lib/fetch-json";
import type { AlertAcknowledgement } from "../types/alerts";

/** "I am on it", with an optional note for the others on call; opened from a firing alert. */
export function AcknowledgeForm({
  alertId,
  onSaved,
  onCancel,
}: {
  alertId: string;
  onSaved: (ack: AlertAcknowledgement) => void;
  onCancel: () => void;
}) {
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const { acknowledgement } = await fetchJson<{ acknowledgement: AlertAcknowledgement }>(`/api/alerts/${alertId}/acknowledge`, {
        method: "POST",
        body: JSON.stringify(note.trim() ? { note } : {}),
      });
      onSaved(acknowledgement);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-3 rounded-lg border bg-card p-4" data-testid="acknowledge-form">
      <div className="grid gap-1.5">
        <Label htmlFor={`ack-note-${alertId}`}>Note for the others on call (optional)</Label>
        <Input
          id={`ack-note-${alertId}`}
          value={note}
          maxLength={1000}
          onChange={(e) => setNote(e.target.value)}
          placeholder="Looking at the controller logs"
        />
      </div>
      <p className="text-xs text-muted-foreground">
        Acknowledging changes no state and stops no notification: the resolve is still sent. It ends when this alert resolves.
      </p>
      {error ? <FormError message={error} /> : null}
      <div className="flex gap-2">
        <Button type="submit" disabled={saving} data-testid="acknowledge-submit">
          {saving ? "Acknowledging…" : "Acknowledge"}
        </Button>
        <Button type="button" variant="outline" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
