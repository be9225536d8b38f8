"use client";
import { policyLimits } from "@spindle/policy";
import { Plus, Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { formatBinaryBytes } from "../lib/format-policy-value";
import { problemsAt } from "../lib/form-model";
import { BytesControl } from "./field-controls";
import { FieldProblems } from "./field-problems";
import { PolicyFieldRow, type FieldEditing } from "./policy-field";
import { preallocationSegments } from "./policy-field-specs";

type Rule = Record<string, unknown>;

/** Preallocation rules: a pattern and a chunk size per row. */
export function PreallocationField({ editing }: { editing: FieldEditing }) {
  const path = preallocationSegments.join(".");
  const { chunkBytes } = policyLimits;
  return (
    <PolicyFieldRow
      segments={preallocationSegments}
      label="Preallocation rules"
      hint={`Growing files matching a pattern get chunks reserved ahead of their end (${formatBinaryBytes(chunkBytes.min)}–${formatBinaryBytes(chunkBytes.max)}, default ${formatBinaryBytes(chunkBytes.default)}); size and content never change.`}
      editing={editing}
    >
      {({ value, onChange, disabled }) => {
        const rules: Rule[] = Array.isArray(value) ? (value as Rule[]) : [];
        const update = (index: number, patch: Rule) => onChange(rules.map((rule, i) => (i === index ? { ...rule, ...patch } : rule)));
        return (
          <div className="grid gap-2">
            {rules.map((rule, index) => {
              const rulePath = `${path}[${index}]`;
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: the rules are the document's array, controlled inputs with no id; position is their identity
                <div key={index} className="grid gap-1 rounded-md border bg-background p-2" data-testid="preallocation-rule">
                  <div className="flex flex-wrap items-center gap-2">
                    <Input
                      aria-label={`Rule ${index + 1} pattern`}
                      className="min-w-48 flex-1 font-mono text-xs"
                      disabled={disabled}
                      value={typeof rule.pattern === "string" ? rule.pattern : ""}
                      placeholder="/var/lib/postgresql/16/main/pg_wal/*"
                      aria-invalid={problemsAt(editing.problems, `${rulePath}.pattern`).length > 0}
                      onChange={(event) => update(index, { pattern: event.target.value })}
                    />
                    <BytesControl
                      id={`rule-${index}-chunk`}
                      value={rule.chunkBytes ?? chunkBytes.default}
                      disabled={disabled}
                      invalid={problemsAt(editing.problems, `${rulePath}.chunkBytes`).length > 0}
                      onChange={(chunk) => update(index, { chunkBytes: chunk })}
                    />
                    <Button
                      variant="ghost"
                      size="icon"
                      aria-label={`Remove rule ${index + 1}`}
                      disabled={disabled}
                      onClick={() => onChange(rules.filter((_, i) => i !== index))}
                    >
                      <Trash2 />
                    </Button>
                  </div>
                  <FieldProblems path={rulePath} problems={problemsAt(editing.problems, rulePath)} />
                </div>
              );
            })}
            <div>
              <Button
                variant="outline"
                size="sm"
                disabled={disabled}
                onClick={() => onChange([...rules, { pattern: "", chunkBytes: chunkBytes.default }])}
              >
                <Plus /> Add rule
              </Button>
            </div>
          </div>
        );
      }}
    </PolicyFieldRow>
  );
}
