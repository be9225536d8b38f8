"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { fetchJson } from "@/lib/fetch-json";
import type { CreatedEnrollmentToken } from "../types/enrollment-token";

export function CreateTokenForm({ onCreated }: { onCreated: (token: CreatedEnrollmentToken) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const { token } = await fetchJson<{ token: CreatedEnrollmentToken }>("/api/enrollment-tokens", {
        method: "POST",
        body: JSON.stringify({ label: form.get("label"), expiresIn: form.get("expiresIn") }),
      });
      onCreated(token);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setPending(false);
    }
  }

  return (
    <form
      onSubmit={submit}
      className="grid gap-4 sm:grid-cols-[1fr_12rem_auto] sm:items-end"
      aria-label="Create enrolment token"
      data-testid="create-token-form"
    >
      <Field
        label="Label"
        id="label"
        placeholder="e.g. database servers"
        maxLength={100}
        hint="Optional: helps you recognise the token later."
      />
      <div className="grid gap-1.5 self-start">
        <Label htmlFor="expiresIn">Expires after</Label>
        <Select id="expiresIn" name="expiresIn" defaultValue="24h">
          <option value="1h">1 hour</option>
          <option value="24h">24 hours</option>
          <option value="7d">7 days</option>
        </Select>
      </div>
      <Button type="submit" disabled={pending} className="self-start sm:mt-[1.375rem]" data-testid="create-token">
        {pending ? "Creating…" : "Create install command"}
      </Button>
      <div className="sm:col-span-3">
        <FormError message={error} />
      </div>
    </form>
  );
}
