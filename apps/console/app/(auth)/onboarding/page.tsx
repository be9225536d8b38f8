import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CreateOrganisationForm } from "@/modules/auth/components/create-organisation-form";
import { resolveOrgContext } from "@/modules/auth/lib/org-context";

export const metadata: Metadata = { title: "Create an organisation" };

/** For a signed-in user who belongs to no organisation (yet, or any more). */
export default async function OnboardingPage() {
  const result = await resolveOrgContext(await headers());
  if (result.kind === "signed-out") redirect("/sign-in");
  if (result.kind === "ok") redirect("/servers");
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Welcome, {result.userName}</CardTitle>
        <CardDescription>
          You are not a member of any organisation. Create one, or ask a teammate for an invitation link.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <CreateOrganisationForm />
      </CardContent>
    </Card>
  );
}
