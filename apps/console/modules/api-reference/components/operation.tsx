import { Badge } from "@/components/ui/badge";

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document's JSON, drawn field by field
type Json = Record<string, any>;

const methodColours: Record<string, string> = {
  get: "bg-sky-100 text-sky-900",
  post: "bg-emerald-100 text-emerald-900",
  put: "bg-amber-100 text-amber-900",
  patch: "bg-violet-100 text-violet-900",
  delete: "bg-rose-100 text-rose-900",
};

function typeOf(schema: Json | undefined): string {
  if (!schema) return "";
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" | ");
  return [schema.type, schema.format ? `(${schema.format})` : ""].filter(Boolean).join(" ");
}

/** Resolves a component reference for display. */
function resolve(schema: Json | undefined, components: Json): Json | undefined {
  const ref = schema?.$ref as string | undefined;
  return ref ? components.schemas[ref.split("/").pop()!] : schema;
}

function SchemaBlock({ title, schema, components }: { title: string; schema: Json | undefined; components: Json }) {
  const resolved = resolve(schema, components);
  if (!resolved) return null;
  return (
    <details className="rounded-md border bg-muted/30">
      <summary className="cursor-pointer px-3 py-1.5 text-xs font-medium">{title}</summary>
      <pre className="max-h-96 overflow-auto px-3 pb-3 text-xs leading-relaxed">{JSON.stringify(resolved, null, 2)}</pre>
    </details>
  );
}

export function Operation({ method, path, operation, components }: { method: string; path: string; operation: Json; components: Json }) {
  const parameters = (operation.parameters ?? []) as Json[];
  const responses = Object.entries(operation.responses ?? {}) as [string, Json][];
  return (
    <article
      id={operation.operationId}
      className="grid gap-3 rounded-xl border bg-card p-5 shadow-sm"
      data-testid="api-operation"
      data-operation-id={operation.operationId}
    >
      <header className="flex flex-wrap items-center gap-3">
        <span className={`rounded px-2 py-0.5 font-mono text-xs font-semibold uppercase ${methodColours[method] ?? ""}`}>{method}</span>
        <code className="font-mono text-sm">{path}</code>
        <span className="text-sm font-medium">{operation.summary}</span>
      </header>
      {String(operation.description ?? "")
        .split("\n\n")
        .map((paragraph: string) => (
          <p key={paragraph} className="text-sm text-muted-foreground">
            {paragraph}
          </p>
        ))}
      {parameters.length > 0 ? (
        <table className="w-full text-left text-sm">
          <thead className="text-xs text-muted-foreground">
            <tr>
              <th className="py-1">Parameter</th>
              <th>In</th>
              <th>Type</th>
              <th>Required</th>
            </tr>
          </thead>
          <tbody>
            {parameters.map((parameter) => (
              <tr key={`${parameter.in}-${parameter.name}`} className="border-t">
                <td className="py-1 font-mono">{parameter.name}</td>
                <td>{parameter.in}</td>
                <td className="font-mono text-xs">
                  {typeOf(parameter.schema)}
                  {parameter.schema?.default !== undefined ? ` (default ${JSON.stringify(parameter.schema.default)})` : ""}
                </td>
                <td>{parameter.required ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {operation.requestBody ? (
        <SchemaBlock
          title={`Request body (application/json${operation.requestBody.required ? ", required" : ""})`}
          schema={operation.requestBody.content["application/json"].schema}
          components={components}
        />
      ) : null}
      <div className="grid gap-1.5">
        {responses.map(([status, response]) => {
          const [type, content] = (Object.entries(response.content ?? {}) as [string, Json][])[0] ?? [];
          return (
            <div key={status} className="grid gap-1">
              <div className="flex items-center gap-2 text-sm">
                <Badge variant={status.startsWith("2") ? "success" : "secondary"}>{status}</Badge>
                <span className="text-muted-foreground">{response.description}</span>
                {type ? <code className="text-xs text-muted-foreground">{type}</code> : null}
              </div>
              {status.startsWith("2") && content?.schema?.$ref ? (
                <SchemaBlock title="Response body" schema={content.schema} components={components} />
              ) : null}
            </div>
          );
        })}
      </div>
    </article>
  );
}
