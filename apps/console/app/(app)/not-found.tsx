import { SearchX } from "lucide-react";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

export default function NotFound() {
  return (
    <EmptyState
      icon={SearchX}
      title="Not found"
      description="There is nothing at this address in your organisation."
      action={
        <Link href="/servers" className={buttonVariants({ variant: "outline" })}>
          Back to servers
        </Link>
      }
      data-testid="not-found"
    />
  );
}
