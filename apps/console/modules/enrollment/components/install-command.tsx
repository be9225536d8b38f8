import { CopyButton } from "@/components/ui/copy-button";
import type { CreatedEnrollmentToken } from "../types/enrollment-token";
import { formatDateTime } from "@/lib/format";

/** The one-liner with the new token. Shown once: the console keeps only the token's hash. */
export function InstallCommand({ created }: { created: CreatedEnrollmentToken }) {
  return (
    <div className="grid gap-3 rounded-xl border border-primary/30 bg-primary/5 p-5" data-testid="install-command-panel">
      <div>
        <h3 className="font-semibold">Run this on the server, as root</h3>
        <p className="mt-1 text-sm text-muted-foreground">
          Copy it now: the token is shown only once. It enrols any number of servers until {formatDateTime(created.expiresAt)} or until you revoke it.
        </p>
      </div>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <pre
          className="min-w-0 flex-1 overflow-x-auto rounded-md bg-foreground px-4 py-3 font-mono text-sm text-background"
          data-testid="install-command"
        >
          {created.installCommand}
        </pre>
        <CopyButton value={created.installCommand} label="Copy command" data-testid="copy-install-command" />
      </div>
      <p className="text-xs text-muted-foreground">
        The script installs the agent, exchanges the token for the server&apos;s own credential and starts the <code>spindle-agent</code> systemd unit.
        Run it again with <code>--uninstall</code> instead of <code>--token …</code> to remove it. The server appears in the fleet within about 10 seconds.
      </p>
    </div>
  );
}
