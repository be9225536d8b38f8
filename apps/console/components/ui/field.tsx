import type { ComponentProps } from "react";
import { Input } from "./input";
import { Label } from "./label";

/** A labelled input; the label's text is the accessible name tests and screen readers use. */
export function Field({ label, id, hint, ...props }: { label: string; id: string; hint?: string } & ComponentProps<"input">) {
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} name={id} {...props} />
      {hint ? <p className="text-xs text-muted-foreground">{hint}</p> : null}
    </div>
  );
}
