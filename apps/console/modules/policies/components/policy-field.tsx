"use client";
import type { Problem } from "@spindle/policy";
import { ebpfModes } from "@spindle/policy";
import type { ReactNode } from "react";
import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";
import { formatPolicyValue } from "../lib/format-policy-value";
import { getAt, problemsAt, type PolicyDraft } from "../lib/form-model";
import { policyDefaults } from "../lib/policy-defaults";
import { AmountControl, BooleanControl, BudgetControl, BytesControl, ChoiceControl, ListControl } from "./field-controls";
import type { FieldSpec } from "./policy-field-specs";
import { FieldProblems } from "./field-problems";

export interface FieldEditing {
  draft: PolicyDraft;
  problems: readonly Problem[];
  readOnly: boolean;
  onChange: (segments: readonly string[], value: unknown) => void;
}

/**
 * One field of a policy layer: "Set in this policy" decides whether the layer sets it or
 * inherits it; when set, the control edits it and the schema's problems show beneath.
 */
export function PolicyFieldRow({
  segments,
  label,
  hint,
  editing,
  children,
}: {
  segments: readonly string[];
  label: string;
  hint: string;
  editing: FieldEditing;
  children: (props: { id: string; value: unknown; invalid: boolean; onChange: (value: unknown) => void; disabled: boolean }) => ReactNode;
}) {
  const path = segments.join(".");
  const id = `field-${path.replace(/\./g, "-")}`;
  const value = getAt(editing.draft, segments);
  const isSet = value !== undefined;
  const problems = problemsAt(editing.problems, path);
  const fallback = getAt(policyDefaults, segments);
  return (
    <div
      className={cn(
        "grid gap-2 border-b py-3 last:border-b-0 sm:grid-cols-[14rem_1fr] sm:gap-4",
        problems.length > 0 && "bg-destructive/5",
      )}
      data-field={path}
      data-set={isSet}
    >
      <div className="grid content-start gap-1">
        <Label htmlFor={id}>{label}</Label>
        <label className="flex items-center gap-1.5 text-xs text-muted-foreground">
          <input
            type="checkbox"
            checked={isSet}
            disabled={editing.readOnly}
            onChange={(event) => editing.onChange(segments, event.target.checked ? structuredClone(fallback) : undefined)}
            aria-label={`Set ${label} in this policy`}
          />
          Set in this policy
        </label>
      </div>
      <div className="grid min-w-0 gap-1.5">
        {isSet ? (
          children({
            id,
            value,
            invalid: problems.length > 0,
            disabled: editing.readOnly,
            onChange: (next) => editing.onChange(segments, next),
          })
        ) : (
          <p className="py-1.5 text-sm text-muted-foreground">
            Inherited <span className="text-xs">(default: {formatPolicyValue(path, fallback).replace(/\n/g, ", ")})</span>
          </p>
        )}
        <p className="text-xs text-muted-foreground">{hint}</p>
        <FieldProblems path={path} problems={problems} />
      </div>
    </div>
  );
}

export function PolicyField({ spec, editing }: { spec: FieldSpec; editing: FieldEditing }) {
  return (
    <PolicyFieldRow segments={spec.segments} label={spec.label} hint={spec.hint} editing={editing}>
      {(control) => {
        switch (spec.kind) {
          case "boolean":
            return <BooleanControl {...control} />;
          case "integer":
            return <AmountControl {...control} unit={spec.unit} />;
          case "bytes":
            return <BytesControl {...control} />;
          case "budget":
            return <BudgetControl {...control} />;
          case "ebpf":
            return <ChoiceControl {...control} choices={ebpfModes} />;
          case "globs":
          case "paths":
            return <ListControl {...control} />;
        }
      }}
    </PolicyFieldRow>
  );
}
