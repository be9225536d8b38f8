import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Card, CardContent } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { CreatePolicyForm } from "@/modules/policies/components/create-policy-form";

export const metadata: Metadata = { title: "Create policy" };

export default async function NewPolicyPage() {
  const context = await pageContext();
  if (!can(context.role, { policy: ["create"] })) redirect("/policies");
  return (
    <>
      <Link href="/policies" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Policies
      </Link>
      <PageHeader title="Create policy" description="It starts empty, inheriting everything; set only what it should change." />
      <Card>
        <CardContent className="pt-5">
          <CreatePolicyForm />
        </CardContent>
      </Card>
    </>
  );
}
