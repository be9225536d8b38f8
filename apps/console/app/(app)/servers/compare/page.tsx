import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui/page-header";
import { pageContext } from "@/modules/auth/lib/page-context";
import { CompareView } from "@/modules/compare/components/compare-view";

export const metadata: Metadata = { title: "Compare servers" };

export default async function ComparePage() {
  await pageContext();
  return (
    <>
      <Link href="/servers" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Servers
      </Link>
      <PageHeader
        title="Compare servers"
        description="One metric of 2 to 4 servers on one chart, in one window. Drag across the chart to zoom; the link keeps the window."
      />
      <CompareView />
    </>
  );
}
