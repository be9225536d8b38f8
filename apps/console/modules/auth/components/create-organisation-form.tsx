"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient } from "../lib/auth-client";
import { organisationSlug } from "../lib/organisation-slug";

export function CreateOrganisationForm({ defaultName }: { defaultName?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("organization") ?? "").trim();
    setPending(true);
    setError(null);
    const created = await authClient.organization.create({ name, slug: organisationSlug(name) });
    if (created.error) {
      setPending(false);
      return setError(created.error.message ?? "Could not create the organisation.");
    }
    router.push("/servers");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="grid gap-4" aria-label="Create organisation">
      <Field label="Organisation name" id="organization" required maxLength={100} defaultValue={defaultName} />
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="create-organisation">
        {pending ? "Creating…" : "Create organisation"}
      </Button>
    </form>
  );
}
