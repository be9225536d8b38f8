"use client";
import { AlertTriangle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

/** Any page under (app) that fails to render: say so and offer a retry, keep the navigation. */
export default function AppError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <EmptyState
      icon={AlertTriangle}
      title="This page could not be loaded"
      description={
        <>
          The console could not reach its database or hit an unexpected error. Try again; if it persists, check the console logs
          {error.digest ? ` (reference ${error.digest})` : ""}.
        </>
      }
      action={<Button onClick={reset}>Try again</Button>}
      data-testid="page-error"
    />
  );
}
