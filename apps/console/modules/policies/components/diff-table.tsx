import { Badge } from "@/components/ui/badge";
import { formatPolicyValue } from "../lib/format-policy-value";
import type { DiffEntry } from "../lib/policy-diff";

const kindLabel = { added: "set", removed: "unset", changed: "changed" } as const;
const kindVariant = { added: "success", removed: "destructive", changed: "warning" } as const;

function Value({ path, value }: { path: string; value: unknown }) {
  if (value === undefined) return <span className="text-muted-foreground">inherited</span>;
  const text =
    typeof value === "object" && value !== null && !Array.isArray(value) ? JSON.stringify(value, null, 1) : formatPolicyValue(path, value);
  return <span className="whitespace-pre-wrap break-all font-mono text-xs">{text}</span>;
}

/** Field-by-field changes between two policy layers. */
export function DiffTable({ entries }: { entries: readonly DiffEntry[] }) {
  if (entries.length === 0)
    return (
      <p className="text-sm text-muted-foreground" data-testid="diff-empty">
        The two versions are identical.
      </p>
    );
  return (
    <div className="overflow-x-auto rounded-lg border">
      <table className="w-full text-sm" data-testid="diff-table">
        <thead>
          <tr className="border-b text-left text-xs uppercase tracking-wide text-muted-foreground">
            <th className="px-3 py-2 font-medium">Field</th>
            <th className="px-3 py-2 font-medium">Before</th>
            <th className="px-3 py-2 font-medium">After</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr
              key={entry.path}
              className="border-b align-top last:border-0"
              data-testid="diff-row"
              data-path={entry.path}
              data-kind={entry.kind}
            >
              <td className="px-3 py-2">
                <code className="text-xs">{entry.path}</code> <Badge variant={kindVariant[entry.kind]}>{kindLabel[entry.kind]}</Badge>
              </td>
              <td className="px-3 py-2 text-destructive/90">
                <Value path={entry.path} value={entry.before} />
              </td>
              <td className="px-3 py-2 text-success">
                <Value path={entry.path} value={entry.after} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
