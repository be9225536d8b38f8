import { Info } from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

/** One deep-telemetry panel: title, what it shows, and either its content or why there is none. */
export function Panel({
  testId,
  title,
  description,
  empty,
  children,
}: {
  testId: string;
  title: string;
  description: ReactNode;
  /** When set, the panel explains this instead of drawing empty charts. */
  empty?: string | null;
  children?: ReactNode;
}) {
  return (
    <Card data-testid={testId} data-state={empty ? "empty" : "data"}>
      <CardHeader>
        <CardTitle className="text-base">{title}</CardTitle>
        <CardDescription>{description}</CardDescription>
      </CardHeader>
      <CardContent>
        {empty ? (
          <p
            className="flex items-start gap-2 rounded-lg border border-dashed px-4 py-3 text-sm text-muted-foreground"
            data-testid="panel-empty"
          >
            <Info className="mt-0.5 size-4 shrink-0" aria-hidden /> {empty}
          </p>
        ) : (
          children
        )}
      </CardContent>
    </Card>
  );
}
