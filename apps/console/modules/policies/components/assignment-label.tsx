import { Building2, Server, Tag } from "lucide-react";
import type { AssignmentScope } from "../types/policy";

/** "Organisation default", "tag postgres", "server db-7", with the scope's icon. */
export function AssignmentLabel({
  scope,
  tag,
  serverHostname,
}: {
  scope: AssignmentScope;
  tag: string | null;
  serverHostname: string | null;
}) {
  if (scope === "organization")
    return (
      <span className="inline-flex items-center gap-1.5">
        <Building2 className="size-3.5" aria-hidden /> Organisation default
      </span>
    );
  if (scope === "tag")
    return (
      <span className="inline-flex items-center gap-1.5">
        <Tag className="size-3.5" aria-hidden /> tag <code>{tag}</code>
      </span>
    );
  return (
    <span className="inline-flex items-center gap-1.5">
      <Server className="size-3.5" aria-hidden /> server {serverHostname ?? "?"}
    </span>
  );
}
