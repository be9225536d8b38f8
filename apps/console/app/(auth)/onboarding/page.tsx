import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CreateOrganisationForm } from "@/modules/auth/components/create-organisation-form";
import { resolveOrgContext } from "@/modules/auth/lib/org-context";

export const metadata: Metadata = { title: "Create an organisation" };

/**
 * For a signed-in user who belongs to no organisation (yet, or any more). The confirmation link
 * of a sign-up lands here with the organisation name the user typed, ready to create.
 */
export default async function OnboardingPage({ searchParams }: PageProps<"/onboarding">) {
  const { organisation, error } = await searchParams;
  const result = await resolveOrgContext(await headers());
  // A confirmation link that expired or was used lands here with `error`, signed out.
  if (result.kind === "signed-out") redirect(typeof error === "string" ? `/sign-in?error=${encodeURIComponent(error)}` : "/sign-in");
  if (result.kind !== "no-organisation") redirect("/servers");
  const name = typeof organisation === "string" ? organisation.slice(0, 100) : undefined;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Welcome, {result.userName}</CardTitle>
        <CardDescription data-testid="onboarding-description">
          {name
            ? "Your e-mail address is confirmed. Create your organisation to start adding servers."
            : "You are not a member of any organisation. Create one, or ask a teammate for an invitation link."}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <CreateOrganisationForm defaultName={name} />
      </CardContent>
    </Card>
  );
}
