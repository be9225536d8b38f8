"use client";
import { alertComparisons, alertSeverities, alertSignals, findAlertSignal } from "@spindle/domain";
import { Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { fetchJson } from "@/lib/fetch-json";
import { formToRuleInput, newRuleForm, ruleToForm, withSignal, type RuleForm } from "../lib/rule-form";
import type { AlertRuleSummary } from "../types/alerts";
import { RulePreviewPanel } from "./rule-preview";

interface FieldError {
  path: string;
  message: string;
}

function Row({
  id,
  label,
  hint,
  errors,
  path,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  errors: FieldError[];
  path: string;
  children: ReactNode;
}) {
  const mine = errors.filter((e) => e.path === path || e.path.startsWith(`${path}.`));
  return (
    <div className="grid gap-1.5" data-field={path}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint ? <p className="text-xs text-muted-foreground">{hint}</p> : null}
      {mine.map((e) => (
        <p key={e.message} className="text-xs text-destructive" data-testid="field-error">
          {e.message}
        </p>
      ))}
    </div>
  );
}

/** Creates a custom rule or edits one (defaults included), with the 7-day preview beside it. */
export function RuleEditor({
  rule,
  servers,
  canEdit,
}: {
  rule: AlertRuleSummary | null;
  servers: { id: string; hostname: string }[];
  canEdit: boolean;
}) {
  const router = useRouter();
  const [form, setForm] = useState<RuleForm>(() => (rule ? ruleToForm(rule) : { ...newRuleForm(), serverId: servers[0]?.id ?? "" }));
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const signal = findAlertSignal(form.signal);
  const input = formToRuleInput(form);
  const set =
    <K extends keyof RuleForm>(key: K) =>
    (event: { target: { value: string } }) =>
      setForm((f) => ({ ...f, [key]: event.target.value as RuleForm[K] }));

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    setErrors([]);
    try {
      await fetchJson(rule ? `/api/alerts/rules/${rule.id}` : "/api/alerts/rules", {
        method: rule ? "PUT" : "POST",
        body: JSON.stringify(input),
      });
      router.push("/alerts/rules");
      router.refresh();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setErrors((failure as { errors?: FieldError[] }).errors ?? []);
      setSaving(false);
    }
  }

  async function remove() {
    if (!rule || !window.confirm(`Delete the rule "${rule.name}"? Its history stays.`)) return;
    try {
      await fetchJson(`/api/alerts/rules/${rule.id}`, { method: "DELETE" });
      router.push("/alerts/rules");
      router.refresh();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }

  const unit = signal?.unit ?? "";
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <form onSubmit={save} className="grid content-start gap-4 rounded-xl border bg-card p-5 shadow-sm" data-testid="rule-form">
        <fieldset disabled={!canEdit} className="grid gap-4">
          <Row id="rule-name" label="Name" path="name" errors={errors}>
            <Input id="rule-name" value={form.name} onChange={set("name")} required maxLength={120} />
          </Row>
          <Row
            id="rule-signal"
            label="Signal"
            path="signal"
            errors={errors}
            hint={signal ? `${signal.basis}. Unit: ${signal.unit}.` : undefined}
          >
            <Select id="rule-signal" value={form.signal} onChange={(e) => setForm((f) => withSignal(f, e.target.value))}>
              {alertSignals.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label} ({s.id})
                </option>
              ))}
            </Select>
          </Row>
          <div className="grid gap-4 sm:grid-cols-3">
            <Row id="rule-aggregation" label="Aggregation" path="aggregation" errors={errors}>
              <Select id="rule-aggregation" value={form.aggregation} onChange={set("aggregation")}>
                {(signal?.aggregations ?? []).map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </Select>
            </Row>
            <Row id="rule-comparison" label="Comparison" path="comparison" errors={errors}>
              <Select id="rule-comparison" value={form.comparison} onChange={set("comparison")}>
                {alertComparisons.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </Select>
            </Row>
            <Row id="rule-threshold" label={`Threshold (${unit})`} path="threshold" errors={errors}>
              <Input id="rule-threshold" type="number" step="any" value={form.threshold} onChange={set("threshold")} required />
            </Row>
          </div>
          <div className="grid gap-4 sm:grid-cols-4">
            <Row
              id="rule-window"
              label="Window (min)"
              path="windowSeconds"
              errors={errors}
              hint="1-minute buckets aggregated per evaluation"
            >
              <Input
                id="rule-window"
                type="number"
                step="any"
                min="1"
                value={form.windowMinutes}
                onChange={set("windowMinutes")}
                required
              />
            </Row>
            <Row id="rule-for" label="For (min)" path="forSeconds" errors={errors} hint="true this long before firing">
              <Input id="rule-for" type="number" step="any" min="0" value={form.forMinutes} onChange={set("forMinutes")} required />
            </Row>
            <Row
              id="rule-resolve"
              label="Resolve after (min)"
              path="resolveSeconds"
              errors={errors}
              hint="clear this long before resolving"
            >
              <Input
                id="rule-resolve"
                type="number"
                step="any"
                min="0"
                value={form.resolveMinutes}
                onChange={set("resolveMinutes")}
                required
              />
            </Row>
            <Row id="rule-nodata" label="No data after (min)" path="noDataSeconds" errors={errors} hint="silent this long: no data">
              <Input
                id="rule-nodata"
                type="number"
                step="any"
                min="1"
                value={form.noDataMinutes}
                onChange={set("noDataMinutes")}
                required
              />
            </Row>
          </div>
          <div className="grid gap-4 sm:grid-cols-3">
            <Row id="rule-scope" label="Applies to" path="scope" errors={errors}>
              <Select id="rule-scope" value={form.scopeKind} onChange={set("scopeKind")}>
                <option value="organization">Every server</option>
                <option value="tag">Servers with a tag</option>
                <option value="server">One server</option>
                {signal?.level === "device" ? <option value="device">One device of a server</option> : null}
              </Select>
            </Row>
            {form.scopeKind === "tag" ? (
              <Row id="rule-tag" label="Tag" path="scope.tag" errors={errors}>
                <Input id="rule-tag" value={form.tag} onChange={set("tag")} required />
              </Row>
            ) : null}
            {form.scopeKind === "server" || form.scopeKind === "device" ? (
              <Row id="rule-server" label="Server" path="scope.serverId" errors={errors}>
                <Select id="rule-server" value={form.serverId} onChange={set("serverId")} required>
                  {servers.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.hostname}
                    </option>
                  ))}
                </Select>
              </Row>
            ) : null}
            {form.scopeKind === "device" ? (
              <Row id="rule-device" label="Device" path="scope.device" errors={errors}>
                <Input id="rule-device" value={form.device} onChange={set("device")} placeholder="sda" required />
              </Row>
            ) : null}
          </div>
          <div className="grid gap-4 sm:grid-cols-3">
            <Row id="rule-severity" label="Severity" path="severity" errors={errors}>
              <Select id="rule-severity" value={form.severity} onChange={set("severity")}>
                {alertSeverities.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </Select>
            </Row>
            <label className="flex items-center gap-2 self-end pb-2 text-sm">
              <input type="checkbox" checked={form.enabled} onChange={(e) => setForm((f) => ({ ...f, enabled: e.target.checked }))} />{" "}
              Enabled
            </label>
          </div>
          <Row
            id="rule-note"
            label="Note for the responder"
            path="note"
            errors={errors}
            hint="Shown with the alert and in its notification: what to check first."
          >
            <textarea
              id="rule-note"
              value={form.note}
              onChange={set("note")}
              maxLength={4000}
              rows={3}
              className="w-full rounded-md border border-input bg-card px-3 py-2 text-sm shadow-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
            />
          </Row>
        </fieldset>
        <FormError message={error} />
        {canEdit ? (
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={saving} data-testid="save-rule">
              {saving ? "Saving…" : rule ? "Save rule" : "Create rule"}
            </Button>
            {rule && rule.defaultKey === null ? (
              <Button variant="ghost" onClick={remove} data-testid="delete-rule">
                <Trash2 /> Delete
              </Button>
            ) : null}
          </div>
        ) : (
          <p className="text-sm text-muted-foreground" data-testid="read-only">
            Your role can read rules but not change them; ask an owner or admin.
          </p>
        )}
      </form>
      <RulePreviewPanel input={input} />
    </div>
  );
}
