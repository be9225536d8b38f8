"use client";
import { validatePolicyLayer, type Problem } from "@spindle/policy";
import { Braces, FileCode, ListChecks, Save } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";
import { setAt, type PolicyDraft } from "../lib/form-model";
import { diffPolicyDocuments } from "../lib/policy-diff";
import { formatRaw, parseRaw, rawFormatLabel, type RawFormat, type RawProblem } from "../lib/raw-format";
import type { PolicyVersionSummary } from "../types/policy";
import { DiffTable } from "./diff-table";
import { PolicyForm } from "./policy-form";
import { PolicyRawEditor } from "./policy-raw-editor";
import { sendJson } from "./send-json";
import { DeliveryChoice, type DeliveryState } from "@/modules/rollouts/components/delivery-choice";
import { defaultDeliveryMode, reachOf, type ReachServer, type ReachTarget } from "@/modules/rollouts/lib/reach";
import type { ChangeOutcome } from "@/modules/rollouts/types/rollout";

/** Where the policy is assigned and the organisation's servers: what a new version reaches. */
export interface EditorDelivery {
  assignments: ReachTarget[];
  servers: ReachServer[];
  rolloutsRequired: boolean;
}

type View = "form" | RawFormat;

const views = [
  ["form", "Form", ListChecks],
  ["json", "JSON", Braces],
  ["yaml", "YAML", FileCode],
] as const;

function isPlainObject(value: unknown): value is PolicyDraft {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Edits the next version of a policy in a form or as raw JSON or YAML. Every view edits one draft
 * and validates it with @spindle/policy's validatePolicyLayer, as the server does on save.
 */
export function PolicyEditor({
  policyId,
  latest,
  draft,
  onDraftChange,
  readOnly,
  delivery,
}: {
  policyId: string;
  latest: PolicyVersionSummary;
  draft: unknown;
  onDraftChange: (draft: unknown) => void;
  readOnly: boolean;
  delivery: EditorDelivery;
}) {
  const router = useRouter();
  const [view, setView] = useState<View>("form");
  const [rawText, setRawText] = useState("");
  const [rawProblem, setRawProblem] = useState<RawProblem | null>(null);
  const [serverProblems, setServerProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [comment, setComment] = useState("");
  const [saving, setSaving] = useState(false);
  const reach = useMemo(() => reachOf(delivery.assignments, delivery.servers), [delivery]);
  const [deliveryState, setDeliveryState] = useState<DeliveryState | null>(null);

  const validation = useMemo(() => validatePolicyLayer(draft), [draft]);
  const problems: Problem[] = !validation.ok ? validation.problems : serverProblems;
  // A raw view's syntax error hides the rest: the text does not parse into a document yet.
  const shownProblems: readonly RawProblem[] = rawProblem ? [rawProblem] : problems;
  const changes = useMemo(() => (isPlainObject(draft) ? diffPolicyDocuments(latest.document, draft) : []), [latest.document, draft]);

  // A version restored from the history replaces the draft: show it in the raw view too.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a draft changed from outside this view resets the text
  useEffect(() => {
    if (view === "form") return;
    const parsed = parseRaw(rawText, view);
    if (parsed.ok && JSON.stringify(parsed.value) === JSON.stringify(draft)) return;
    setRawText(formatRaw(draft, view));
    setRawProblem(null);
  }, [draft]); // only a draft changed from outside this view resets the text

  function changeDraft(next: unknown) {
    onDraftChange(next);
    setServerProblems([]);
    setError(null);
  }

  function switchTo(next: View) {
    if (next === view) return;
    if (rawProblem && view !== "form") {
      setError(`Fix the ${rawFormatLabel[view]} before switching views.`);
      return;
    }
    if (next === "form" && !isPlainObject(draft)) {
      setError("The policy must be an object (a mapping) to edit it in the form.");
      return;
    }
    if (next !== "form") setRawText(formatRaw(draft, next));
    setError(null);
    setView(next);
  }

  function editRaw(format: RawFormat, text: string) {
    setRawText(text);
    const parsed = parseRaw(text, format);
    setRawProblem(parsed.ok ? null : parsed.problem);
    if (parsed.ok) changeDraft(parsed.value);
  }

  async function save() {
    setSaving(true);
    setError(null);
    const result = await sendJson<{ version: PolicyVersionSummary; delivery: ChangeOutcome }>(
      `/api/policies/${policyId}/versions`,
      "POST",
      {
        document: draft,
        comment,
        basedOnVersion: latest.version,
        ...(deliveryState?.ok && deliveryState.delivery ? { delivery: deliveryState.delivery } : {}),
      },
    );
    setSaving(false);
    if (!result.ok) {
      setServerProblems(result.problems);
      setError(result.message);
      return;
    }
    setComment("");
    // A rollout it started is listed beside the editor once the page has refreshed ("Rollouts in progress").
    router.refresh();
  }

  const editing = {
    draft: isPlainObject(draft) ? draft : {},
    problems,
    readOnly,
    onChange: (segments: readonly string[], value: unknown) => changeDraft(setAt(isPlainObject(draft) ? draft : {}, segments, value)),
  };

  return (
    <div className="grid gap-4" data-testid="policy-editor">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="inline-flex rounded-lg border bg-card p-0.5" role="tablist" aria-label="Editor view">
          {views.map(([key, label, Icon]) => (
            <button
              key={key}
              type="button"
              role="tab"
              aria-selected={view === key}
              data-testid={`view-${key}`}
              onClick={() => switchTo(key)}
              className={cn(
                "inline-flex items-center gap-1.5 rounded-md px-3 py-1 text-sm font-medium",
                view === key ? "bg-accent text-accent-foreground" : "text-muted-foreground hover:text-foreground",
              )}
            >
              <Icon className="size-4" aria-hidden /> {label}
            </button>
          ))}
        </div>
        <p className="text-sm text-muted-foreground" data-testid="problem-count">
          {shownProblems.length === 0 ? "No problems" : `${shownProblems.length} problem${shownProblems.length === 1 ? "" : "s"}`}
          {" · "}editing on top of version {latest.version}
        </p>
      </div>

      {view === "form" ? (
        <PolicyForm editing={editing} />
      ) : (
        <PolicyRawEditor
          format={view}
          text={rawText}
          onChange={(text) => editRaw(view, text)}
          problems={shownProblems}
          readOnly={readOnly}
        />
      )}

      {readOnly ? null : (
        <div className="sticky bottom-0 grid gap-3 rounded-xl border bg-card/95 p-4 shadow-sm backdrop-blur" data-testid="save-bar">
          {changes.length > 0 ? (
            <details>
              <summary className="cursor-pointer text-sm font-medium">
                {changes.length} change{changes.length === 1 ? "" : "s"} since version {latest.version}
              </summary>
              <div className="mt-2">
                <DiffTable entries={changes} />
              </div>
            </details>
          ) : (
            <p className="text-sm text-muted-foreground">No changes since version {latest.version}.</p>
          )}
          {reach.servers.length > 0 ? (
            <DeliveryChoice
              defaultMode={defaultDeliveryMode(reach, delivery.rolloutsRequired)}
              reach={reach.description}
              servers={reach.servers}
              onChange={setDeliveryState}
            />
          ) : null}
          <FormError message={error} />
          <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
            <div className="grid flex-1 gap-1.5">
              <Label htmlFor="version-comment">What changed and why</Label>
              <Input
                id="version-comment"
                value={comment}
                maxLength={500}
                onChange={(event) => setComment(event.target.value)}
                placeholder="e.g. raise the cache budget for the nightly batch"
              />
            </div>
            <Button
              onClick={save}
              disabled={saving || changes.length === 0 || shownProblems.length > 0 || (reach.servers.length > 0 && !deliveryState?.ok)}
              data-testid="save-version"
            >
              <Save /> {saving ? "Saving…" : `Save as version ${latest.version + 1}`}
            </Button>
          </div>
        </div>
      )}
    </div>
  );
}
