"use client";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { fetchJson } from "@/lib/fetch-json";
import type { PolicySummary } from "@/modules/policies/types/policy";
import { DeliveryChoice, type DeliveryState } from "@/modules/rollouts/components/delivery-choice";
import type { BulkActionInput, BulkResult, BulkTarget } from "../types/bulk";

export type BulkKind = "tag" | "untag" | "assign-policy" | "revoke";

const titles: Record<BulkKind, string> = {
  tag: "Tag servers",
  untag: "Remove a tag",
  "assign-policy": "Assign a policy",
  revoke: "Revoke agent credentials",
};

function describe(result: BulkResult, what: string): string {
  const servers = (n: number) => (n === 1 ? "1 server" : `${n} servers`);
  const verb = result.preview ? "will" : "did";
  switch (result.action) {
    case "tag":
      return `${result.preview ? "Tags" : "Tagged"} ${servers(result.changed)} with ${what}${result.unchanged ? `; ${servers(result.unchanged)} had it already` : ""}.`;
    case "untag":
      return `${result.preview ? "Removes" : "Removed"} ${what} from ${servers(result.changed)}${result.unchanged ? `; ${servers(result.unchanged)} did not have it` : ""}.`;
    case "assign-policy":
      return (
        `${servers(result.changed)} ${verb} get “${what}” as their own policy${result.unchanged ? `; ${servers(result.unchanged)} had it already` : ""}.` +
        (!result.preview && result.delivery?.mode === "rollout"
          ? ` It goes out as a rollout: ${result.delivery.servers} server${result.delivery.servers === 1 ? "" : "s"} in ${result.delivery.waves} wave${result.delivery.waves === 1 ? "" : "s"}.`
          : "")
      );
    case "revoke":
      return (
        `${result.preview ? "Revokes" : "Revoked"} the agent credential of ${servers(result.changed)}${result.unchanged ? `; ${servers(result.unchanged)} revoked already` : ""}.` +
        (result.preview
          ? " Their agents stop sending at once and stay revoked until an admin allows a re-enrolment on each server's page."
          : "")
      );
  }
}

/**
 * The confirmation of a bulk action: what to apply (a tag, a policy), then the preview's figures
 * from the server (how many change, what is replaced), then the action itself.
 */
export function BulkDialog({
  kind,
  target,
  count,
  knownTags,
  onClose,
}: {
  kind: BulkKind;
  target: BulkTarget;
  count: number;
  knownTags: string[];
  onClose: (changed: boolean) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [tag, setTag] = useState("");
  const [policies, setPolicies] = useState<PolicySummary[] | null>(null);
  const [policyId, setPolicyId] = useState("");
  const [preview, setPreview] = useState<BulkResult | null>(null);
  const [done, setDone] = useState<BulkResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [delivery, setDelivery] = useState<DeliveryState | null>(null);

  useEffect(() => {
    dialog.current?.showModal();
    if (kind === "assign-policy") {
      fetchJson<{ policies: PolicySummary[] }>("/api/policies").then(
        (answer) => setPolicies(answer.policies),
        (failure: Error) => setError(failure.message),
      );
    }
  }, [kind]);

  const what = kind === "assign-policy" ? (policies?.find((p) => p.id === policyId)?.name ?? "") : tag.trim().toLowerCase();
  const request = (previewOnly: boolean): BulkActionInput => {
    const common = { target, preview: previewOnly };
    if (kind === "tag" || kind === "untag") return { action: kind, tag: tag.trim(), ...common };
    if (kind === "assign-policy")
      return {
        action: kind,
        policyId,
        ...common,
        ...(!previewOnly && delivery?.ok && delivery.delivery ? { delivery: delivery.delivery } : {}),
      };
    return { action: "revoke", ...common };
  };
  const send = async (previewOnly: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const { result } = await fetchJson<{ result: BulkResult }>("/api/servers/bulk", {
        method: "POST",
        body: JSON.stringify(request(previewOnly)),
      });
      if (previewOnly) setPreview(result);
      else setDone(result);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  const close = () => {
    dialog.current?.close();
    onClose(done !== null);
  };
  const needsInput = kind !== "revoke";
  const ready = kind === "assign-policy" ? policyId !== "" : kind === "revoke" || tag.trim() !== "";

  return (
    <dialog
      ref={dialog}
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      data-testid="bulk-dialog"
      data-action={kind}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border bg-card p-0 text-card-foreground shadow-xl backdrop:bg-black/40"
    >
      <form
        className="grid gap-4 p-5"
        onSubmit={(event) => {
          event.preventDefault();
          void send(preview === null);
        }}
      >
        <h2 className="text-lg font-semibold">{titles[kind]}</h2>
        <p className="text-sm text-muted-foreground">{count === 1 ? "1 server selected." : `${count} servers selected.`}</p>
        {needsInput && preview === null ? (
          kind === "assign-policy" ? (
            <label className="grid gap-1 text-sm font-medium">
              Policy
              <Select
                aria-label="Policy"
                value={policyId}
                onChange={(event) => setPolicyId(event.target.value)}
                data-testid="bulk-policy"
                disabled={policies === null}
              >
                <option value="">{policies === null ? "Loading policies…" : "Choose a policy"}</option>
                {(policies ?? []).map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </Select>
            </label>
          ) : (
            <label className="grid gap-1 text-sm font-medium">
              Tag
              <Input
                aria-label="Tag"
                value={tag}
                onChange={(event) => setTag(event.target.value)}
                list="bulk-known-tags"
                data-testid="bulk-tag-input"
                placeholder="e.g. frontend"
                autoFocus
                maxLength={63}
              />
              <datalist id="bulk-known-tags">
                {knownTags.map((t) => (
                  <option key={t} value={t} />
                ))}
              </datalist>
            </label>
          )
        ) : null}
        {preview && !done ? (
          <div className="grid gap-2 rounded-lg border bg-muted/40 p-3 text-sm" data-testid="bulk-preview" data-changed={preview.changed}>
            <p>{describe(preview, what)}</p>
            {preview.replaced.length > 0 ? (
              <p data-testid="bulk-replaced">
                Replaces the own policy of{" "}
                {preview.replaced
                  .slice(0, 5)
                  .map((r) => `${r.hostname} (“${r.policy}”)`)
                  .join(", ")}
                {preview.replaced.length > 5 ? ` and ${preview.replaced.length - 5} more` : ""}.
              </p>
            ) : null}
          </div>
        ) : null}
        {preview && !done && kind === "assign-policy" && preview.changed > 0 ? (
          <DeliveryChoice
            defaultMode={preview.changed > 1 ? "rollout" : "now"}
            reach={`${preview.changed} server${preview.changed === 1 ? "" : "s"} selected here`}
            servers={[]}
            onChange={setDelivery}
          />
        ) : null}
        {done ? (
          <p
            className="rounded-lg border border-success/40 bg-success/10 p-3 text-sm"
            role="status"
            data-testid="bulk-result"
            data-changed={done.changed}
          >
            {describe(done, what)}{" "}
            {done.delivery?.mode === "rollout" ? (
              <a className="underline" href={`/rollouts/${done.delivery.rolloutId}`} data-testid="bulk-rollout-link">
                Follow the rollout
              </a>
            ) : null}
          </p>
        ) : null}
        {error ? (
          <p className="text-sm text-destructive" role="alert" data-testid="form-error">
            {error}
          </p>
        ) : null}
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="outline" onClick={close} data-testid="bulk-close">
            {done ? "Close" : "Cancel"}
          </Button>
          {done ? null : preview === null ? (
            <Button type="submit" disabled={!ready || busy} data-testid="bulk-review">
              Review
            </Button>
          ) : (
            <Button
              type="submit"
              variant={kind === "revoke" ? "destructive" : "default"}
              disabled={busy || preview.changed === 0 || (kind === "assign-policy" && !delivery?.ok)}
              data-testid="bulk-confirm"
            >
              {preview.changed === 0
                ? "Nothing to change"
                : `Confirm for ${preview.changed === 1 ? "1 server" : `${preview.changed} servers`}`}
            </Button>
          )}
        </div>
      </form>
    </dialog>
  );
}
