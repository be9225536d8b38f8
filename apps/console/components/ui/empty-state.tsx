import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "@/lib/utils";

/** What a page shows when there is nothing yet: what is missing and the next step. */
export function EmptyState({
  icon: Icon,
  title,
  description,
  action,
  className,
  ...props
}: { icon: LucideIcon; title: string; description: ReactNode; action?: ReactNode; className?: string } & { "data-testid"?: string }) {
  return (
    <div
      className={cn("flex flex-col items-center justify-center rounded-xl border border-dashed bg-card px-6 py-14 text-center", className)}
      {...props}
    >
      <div className="mb-4 flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
        <Icon className="size-6" aria-hidden />
      </div>
      <h2 className="text-lg font-semibold">{title}</h2>
      <p className="mt-1 max-w-md text-sm text-muted-foreground">{description}</p>
      {action ? <div className="mt-5">{action}</div> : null}
    </div>
  );
}
