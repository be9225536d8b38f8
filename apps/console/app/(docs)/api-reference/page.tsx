import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui/page-header";
import { openApiDocument } from "@/app/api/openapi.json/document";
import { Operation } from "@/modules/api-reference/components/operation";

export const metadata: Metadata = { title: "API reference" };
export const dynamic = "force-dynamic";

/** The OpenAPI document, drawn: every operation by section, with its parameters, bodies and answers. */
export default function ApiReferencePage() {
  const document = openApiDocument();
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI operation as JSON, drawn field by field
    Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as Record<string, any> })),
  );
  return (
    <div className="grid gap-8" data-testid="api-reference">
      <PageHeader
        title="Spindle API reference"
        description={
          <>
            Every route of the console&apos;s JSON API, generated from the code. Create a token in Settings → API tokens and send it as{" "}
            <code>Authorization: Bearer spk_…</code>. The machine-readable document is{" "}
            <Link href="/api/openapi.json" className="text-primary hover:underline" data-testid="openapi-json-link">
              /api/openapi.json
            </Link>{" "}
            (OpenAPI {document.openapi}).
          </>
        }
      />
      <pre className="overflow-x-auto rounded-md border bg-muted/40 p-3 text-xs">{`curl -H "Authorization: Bearer $SPINDLE_TOKEN" ${document.servers[0]?.url}/api/servers`}</pre>
      <nav aria-label="Sections" className="flex flex-wrap gap-2 text-sm">
        {document.tags.map((tag) => (
          <a key={tag.name} href={`#tag-${tag.name.replace(/\s+/g, "-")}`} className="rounded border px-2 py-1 hover:bg-accent">
            {tag.name}
          </a>
        ))}
      </nav>
      {document.tags.map((tag) => (
        <section key={tag.name} id={`tag-${tag.name.replace(/\s+/g, "-")}`} className="grid gap-4" data-testid="api-tag">
          <div>
            <h2 className="text-xl font-semibold">{tag.name}</h2>
            <p className="text-sm text-muted-foreground">{tag.description}</p>
          </div>
          {operations
            .filter(({ operation }) => operation.tags?.includes(tag.name))
            .map(({ path, method, operation }) => (
              <Operation key={`${method} ${path}`} method={method} path={path} operation={operation} components={document.components} />
            ))}
        </section>
      ))}
    </div>
  );
}
