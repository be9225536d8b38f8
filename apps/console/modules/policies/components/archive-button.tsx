"use client";
import { Archive, ArchiveRestore } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { sendJson } from "./send-json";

/** Archive hides a policy from new assignments; the server refuses while it is still assigned. */
export function ArchiveButton({ policyId, archived }: { policyId: string; archived: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function toggle() {
    setPending(true);
    const result = await sendJson(`/api/policies/${policyId}`, "PATCH", { archived: !archived });
    setPending(false);
    setError(result.ok ? null : result.message);
    if (result.ok) router.refresh();
  }
  return (
    <div className="flex items-center gap-2">
      {error ? (
        <span className="max-w-xs text-xs text-destructive" role="alert">
          {error}
        </span>
      ) : null}
      <Button variant="outline" onClick={toggle} disabled={pending} data-testid="archive-policy">
        {archived ? <ArchiveRestore /> : <Archive />} {archived ? "Restore" : "Archive"}
      </Button>
    </div>
  );
}
