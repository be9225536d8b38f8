"use client";
import { useEffect, useState } from "react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { fetchJson } from "@/lib/fetch-json";
import { formatDateTime } from "@/lib/format";
import { formatDuration } from "../lib/describe-rule";
import type { RulePreview } from "../lib/preview-rule";

type PreviewState = { status: "loading" } | { status: "ready"; preview: RulePreview } | { status: "error"; message: string };

/**
 * While the rule is edited: how often it would have fired over the last 7 days of this
 * organisation's stored data, refreshed half a second after the last change. Nothing is saved.
 */
export function RulePreviewPanel({ input }: { input: unknown }) {
  const body = JSON.stringify(input);
  const [state, setState] = useState<PreviewState>({ status: "loading" });

  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    const timer = setTimeout(async () => {
      try {
        const { preview } = await fetchJson<{ preview: RulePreview }>("/api/alerts/rules/preview", { method: "POST", body });
        if (current) setState({ status: "ready", preview });
      } catch (failure) {
        const fields = (failure as { errors?: { path: string; message: string }[] }).errors ?? [];
        const message =
          fields.length > 0
            ? `fix the rule first (${fields.map((f) => `${f.path}: ${f.message}`).join("; ")})`
            : failure instanceof Error
              ? failure.message
              : String(failure);
        if (current) setState({ status: "error", message });
      }
    }, 500);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [body]);

  const dataState = state.status === "ready" ? (state.preview.previewable ? "ready" : "not-previewable") : state.status;
  return (
    <section
      className="grid gap-2 rounded-xl border bg-card p-4 shadow-sm"
      data-testid="rule-preview"
      data-state={dataState}
      aria-live="polite"
    >
      <h2 className="font-semibold">Preview: the last 7 days</h2>
      {state.status === "loading" ? <p className="text-sm text-muted-foreground">Replaying the rule on the stored data…</p> : null}
      {state.status === "error" ? (
        <p className="text-sm text-destructive" data-testid="preview-error">
          No preview: {state.message}
        </p>
      ) : null}
      {state.status === "ready" && !state.preview.previewable ? (
        <Alert data-testid="preview-not-previewable">
          <AlertTitle>No stored past to replay</AlertTitle>
          <AlertDescription>{state.preview.reason}. The rule can still be saved; it is evaluated from now on.</AlertDescription>
        </Alert>
      ) : null}
      {state.status === "ready" && state.preview.previewable ? <PreviewFigures preview={state.preview} /> : null}
    </section>
  );
}

function PreviewFigures({ preview }: { preview: RulePreview & { previewable: true } }) {
  // The range and the signal's basis are shown either way: with no data, they say what was looked for.
  const searched = (
    <p className="text-xs text-muted-foreground">
      From {formatDateTime(String(preview.from))} to {formatDateTime(String(preview.to))}, {preview.basis}.
    </p>
  );
  if (preview.subjects === 0) {
    return (
      <div className="grid gap-2 text-sm">
        <p className="text-muted-foreground" data-testid="preview-no-data">
          No server in the rule&apos;s scope stored data for this signal in the last 7 days, so there is nothing to replay: the preview
          cannot say how noisy the rule is.
        </p>
        {searched}
      </div>
    );
  }
  return (
    <div className="grid gap-2 text-sm">
      <p>
        Would have fired{" "}
        <strong data-testid="preview-firings" data-count={preview.firings}>
          {preview.firings === 1 ? "once" : `${preview.firings} times`}
        </strong>{" "}
        on {preview.subjectsFired} of {preview.subjects} {preview.subjects === 1 ? "subject" : "subjects"} with data, firing for{" "}
        {formatDuration(preview.firingSeconds)} in all
        {preview.pendingsCleared > 0 ? `; ${preview.pendingsCleared} pending spells cleared before the for-duration` : ""}
        {preview.noDataEntries > 0 ? `; ${preview.noDataEntries} times without data` : ""}.
      </p>
      {searched}
      {preview.subjectsFired > 0 ? (
        <ul className="grid gap-0.5 text-xs" data-testid="preview-subjects">
          {preview.bySubject
            .filter((s) => s.firings > 0)
            .map((s) => (
              <li key={`${s.serverId}/${s.component}`}>
                {preview.hostnames[s.serverId] ?? "a removed server"}
                {s.component ? ` · ${s.component}` : ""}: {s.firings === 1 ? "once" : `${s.firings} times`},{" "}
                {formatDuration(s.firingSeconds)} firing
              </li>
            ))}
        </ul>
      ) : null}
    </div>
  );
}
