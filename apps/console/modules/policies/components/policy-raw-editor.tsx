"use client";
import { cn } from "@/lib/utils";
import { rawFormatLabel, type RawFormat, type RawProblem } from "../lib/raw-format";

/** The raw layer as JSON or YAML, for power users and for fields the form does not show. */
export function PolicyRawEditor({
  format,
  text,
  onChange,
  problems,
  readOnly,
}: {
  format: RawFormat;
  text: string;
  onChange: (text: string) => void;
  problems: readonly RawProblem[];
  readOnly: boolean;
}) {
  return (
    <div className="grid gap-2" data-testid={`policy-${format}`}>
      <textarea
        aria-label={`Policy ${rawFormatLabel[format]}`}
        value={text}
        readOnly={readOnly}
        spellCheck={false}
        rows={Math.min(40, Math.max(12, text.split("\n").length + 2))}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problems.length > 0}
        className={cn(
          "w-full rounded-lg border border-input bg-card p-3 font-mono text-xs leading-relaxed shadow-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-invalid:border-destructive",
        )}
      />
      {problems.length > 0 ? (
        <ul className="grid gap-0.5 rounded-md border border-destructive/40 bg-destructive/5 p-3" data-testid={`${format}-problems`}>
          {problems.map((problem) => (
            <li key={`${problem.path} ${problem.code}`} className="text-xs text-destructive" role="alert" data-code={problem.code}>
              <code className="font-semibold">{problem.path || "policy"}</code>: {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
