import type { Problem } from "@spindle/policy";

/** A field's problems under it; "readCache.pin[2]" reads as "Line 3" (lists are one per line). */
export function FieldProblems({
  path,
  problems,
  entryLabel = "Line",
}: {
  path: string;
  problems: readonly Problem[];
  entryLabel?: string;
}) {
  if (problems.length === 0) return null;
  return (
    <ul className="grid gap-0.5" data-testid="field-problems" data-path={path}>
      {problems.map((problem) => {
        const entry = problem.path.slice(path.length).match(/^\[(\d+)\]/);
        const prefix = entry
          ? `${entryLabel} ${Number(entry[1]) + 1}: `
          : problem.path !== path
            ? `${problem.path.slice(path.length + 1)}: `
            : "";
        return (
          <li key={`${problem.path} ${problem.code}`} className="text-xs text-destructive" role="alert" data-code={problem.code}>
            {prefix}
            {problem.message}
          </li>
        );
      })}
    </ul>
  );
}
