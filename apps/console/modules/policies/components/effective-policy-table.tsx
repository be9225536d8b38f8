import Link from "next/link";
import { formatPolicyValue } from "../lib/format-policy-value";
import type { FieldSource, LayerSource } from "../types/policy";

export function layerLabel(source: LayerSource): string {
  const where = source.scope === "organization" ? "organisation default" : source.scope === "tag" ? `tag ${source.tag}` : "this server";
  return `${where} · ${source.policyName} v${source.version}`;
}

/** Every value the server gets and the layer that set it, so inheritance can be read at a glance. */
export function EffectivePolicyTable({ fields }: { fields: FieldSource[] }) {
  return (
    <div className="overflow-x-auto rounded-lg border">
      <table className="w-full text-sm" data-testid="effective-policy">
        <thead>
          <tr className="border-b text-left text-xs uppercase tracking-wide text-muted-foreground">
            <th className="px-3 py-2 font-medium">Field</th>
            <th className="px-3 py-2 font-medium">Value</th>
            <th className="px-3 py-2 font-medium">Set by</th>
          </tr>
        </thead>
        <tbody>
          {fields
            .filter((field) => field.path !== "schemaVersion")
            .map((field) => (
              <tr
                key={field.path}
                className="border-b align-top last:border-0"
                data-testid="effective-field"
                data-path={field.path}
                data-source={field.source?.scope ?? "default"}
              >
                <td className="px-3 py-1.5">
                  <code className="text-xs">{field.path}</code>
                </td>
                <td className="whitespace-pre-wrap break-all px-3 py-1.5 font-mono text-xs">
                  {formatPolicyValue(field.path, field.value)}
                </td>
                <td className="px-3 py-1.5 text-xs">
                  {field.source ? (
                    <Link href={`/policies/${field.source.policyId}`} className="hover:underline">
                      {layerLabel(field.source)}
                    </Link>
                  ) : (
                    <span className="text-muted-foreground">default</span>
                  )}
                </td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
