"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import type { PolicyDetail } from "../types/policy";
import { sendJson } from "./send-json";

/** Name and description; the policy starts as an empty layer (version 1) and opens in the editor. */
export function CreatePolicyForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await sendJson<{ policy: PolicyDetail }>("/api/policies", "POST", {
      name: String(form.get("name") ?? ""),
      description: String(form.get("description") ?? ""),
      comment: "created",
    });
    if (!result.ok) {
      setPending(false);
      return setError(result.message);
    }
    router.push(`/policies/${result.data.policy.id}`);
  }

  return (
    <form onSubmit={submit} className="grid max-w-xl gap-4" data-testid="create-policy-form">
      <Field label="Name" id="name" required maxLength={100} placeholder="PostgreSQL servers" autoFocus />
      <Field label="Description" id="description" maxLength={2000} placeholder="What the policy is for" hint="Optional." />
      <FormError message={error} />
      <div>
        <Button type="submit" disabled={pending} data-testid="create-policy-submit">
          {pending ? "Creating…" : "Create and edit"}
        </Button>
      </div>
    </form>
  );
}
