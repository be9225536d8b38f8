"use client";
// Below the one-liner: the same enrolment through the gateway's package repositories (apt, dnf)
// or the Helm chart's DaemonSet, for fleets managed by a package manager or Kubernetes.
import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import type { PackageCommands } from "../lib/package-commands";

const tabs: { id: keyof PackageCommands; label: string; note: string }[] = [
  { id: "apt", label: "apt (Debian, Ubuntu)",
    note: "Adds the gateway's signed apt repository (its key in /etc/apt/keyrings), writes the enrolment token for the agent's first start, and installs spindle-agent with its systemd unit. apt-get upgrade brings new versions; the console's upgrades leave these servers to apt." },
  { id: "dnf", label: "dnf / yum (RHEL, Rocky, Fedora)",
    note: "Adds the gateway's yum repository (its metadata signed), writes the enrolment token and installs spindle-agent with its systemd unit. dnf upgrade brings new versions." },
  { id: "kubernetes", label: "Kubernetes",
    note: "Keeps the token in a Secret and runs the agent on every node as a DaemonSet of the Helm chart (eBPF privileges, the node's name as hostname, a credential per node kept on the node across pod restarts). helm upgrade brings new versions." },
];

export function PackageInstall({ commands }: { commands: PackageCommands }) {
  const [tab, setTab] = useState<keyof PackageCommands>("apt");
  const current = tabs.find((t) => t.id === tab)!;
  return (
    <div className="grid gap-3 rounded-xl border p-5" data-testid="package-install-panel">
      <div>
        <h3 className="font-semibold">Or install it with a package manager</h3>
        <p className="mt-1 text-sm text-muted-foreground">The same token, through the gateway&apos;s package repositories or the Helm chart.</p>
      </div>
      <div role="tablist" aria-label="Package manager" className="flex flex-wrap gap-1">
        {tabs.map((t) => (
          <button key={t.id} type="button" role="tab" aria-selected={tab === t.id} data-testid={`package-tab-${t.id}`} onClick={() => setTab(t.id)}
            className={`rounded-md px-3 py-1 text-sm font-medium ${tab === t.id ? "bg-foreground text-background" : "text-muted-foreground hover:bg-muted"}`}>
            {t.label}
          </button>
        ))}
      </div>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start" role="tabpanel">
        <pre className="min-w-0 flex-1 overflow-x-auto rounded-md bg-foreground px-4 py-3 font-mono text-sm text-background" data-testid={`package-command-${tab}`}>
          {commands[tab]}
        </pre>
        <CopyButton value={commands[tab]} label="Copy commands" data-testid={`copy-package-command-${tab}`} />
      </div>
      <p className="text-xs text-muted-foreground">{current.note}</p>
    </div>
  );
}
