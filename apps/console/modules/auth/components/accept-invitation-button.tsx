"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { authClient } from "../lib/auth-client";

export function AcceptInvitationButton({ invitationId }: { invitationId: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function accept() {
    setPending(true);
    const accepted = await authClient.organization.acceptInvitation({ invitationId });
    if (accepted.error) {
      setPending(false);
      return setError(accepted.error.message ?? "Could not accept the invitation.");
    }
    router.push("/servers");
    router.refresh();
  }
  return (
    <div className="grid gap-3">
      <FormError message={error} />
      <Button onClick={accept} disabled={pending} data-testid="accept-invitation">
        {pending ? "Joining…" : "Accept invitation"}
      </Button>
    </div>
  );
}
