"use client";
import type { Problem } from "@spindle/policy";
import { AlertTriangle } from "lucide-react";
import { Fragment } from "react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { formPaths, policySections } from "./policy-field-specs";
import { PolicyField, type FieldEditing } from "./policy-field";
import { PreallocationField } from "./preallocation-field";

function isShownByForm(path: string): boolean {
  return formPaths.some((field) => path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`));
}

/** Fields the form has no input for (typos from the JSON view, say): only the JSON view edits them. */
function unknownFields(draft: Record<string, unknown>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, path: string) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      if (!isShownByForm(path)) found.push(path);
      return;
    }
    if (path !== "" && formPaths.includes(path)) return;
    for (const [key, member] of Object.entries(value)) visit(member, path === "" ? key : `${path}.${key}`);
  };
  visit(draft, "");
  return found;
}

/** Every field of a policy layer, grouped by feature, with the problems beside each field. */
export function PolicyForm({ editing }: { editing: FieldEditing }) {
  const elsewhere: Problem[] = editing.problems.filter((problem) => !isShownByForm(problem.path));
  const extra = unknownFields(editing.draft);
  return (
    <div className="grid gap-6" data-testid="policy-form">
      {elsewhere.length > 0 || extra.length > 0 ? (
        <Alert variant={elsewhere.length > 0 ? "destructive" : "default"}>
          <AlertTriangle />
          <AlertTitle>Outside the form</AlertTitle>
          <AlertDescription>
            <ul className="grid gap-0.5">
              {elsewhere.map((problem) => (
                <li key={`${problem.path} ${problem.code}`} role="alert" data-code={problem.code}>
                  <code>{problem.path || "policy"}</code>: {problem.message}
                </li>
              ))}
              {extra
                .filter((path) => !elsewhere.some((problem) => problem.path === path))
                .map((path) => (
                  <li key={path}>
                    <code>{path}</code> is set; edit it in the JSON view.
                  </li>
                ))}
            </ul>
          </AlertDescription>
        </Alert>
      ) : null}
      {policySections.map((section) => (
        <section key={section.key} className="grid gap-1" aria-labelledby={`section-${section.key}`}>
          <h3 id={`section-${section.key}`} className="font-semibold">
            {section.title}
          </h3>
          <p className="text-sm text-muted-foreground">{section.description}</p>
          <div className="mt-2 rounded-lg border bg-card px-4">
            {section.fields.map((field, index) => (
              <Fragment key={field.segments.join(".")}>
                <PolicyField spec={field} editing={editing} />
                {section.key === "writeOptimization" && index === 0 ? <PreallocationField editing={editing} /> : null}
              </Fragment>
            ))}
          </div>
        </section>
      ))}
    </div>
  );
}
