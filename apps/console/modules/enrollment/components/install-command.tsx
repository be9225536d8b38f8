"use client";
import { useState } from "react";
import { AlertTriangle, Ban } from "lucide-react";
import { CopyButton } from "@/components/ui/copy-button";
import type { CreatedEnrollmentToken } from "../types/enrollment-token";
import { formatDateTime } from "@/lib/format";
import { describeGatewayAddress, installNotes, type InstallNote, type InstallPlatform as Platform } from "../lib/gateway-address";
import { type PackageManager, packageManagers } from "../lib/install-command";
import type { ReactNode } from "react";

const platforms: { id: Platform; label: string }[] = [
  { id: "linux", label: "Linux" },
  { id: "windows", label: "Windows" },
];

/** What the user must know before copying: shown above the command, never after. */
function Note({ note }: { note: InstallNote }) {
  const blocker = note.level === "blocker";
  return (
    <div
      role="note"
      data-testid={`install-note-${note.id}`}
      className={`flex gap-2 rounded-md border px-3 py-2 text-sm ${blocker ? "border-destructive/40 bg-destructive/5" : "border-amber-500/40 bg-amber-50"}`}
    >
      {blocker ? (
        <Ban className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
      ) : (
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-amber-600" aria-hidden />
      )}
      <div>
        <p className="font-medium">{note.title}</p>
        <p className="text-muted-foreground">{note.text}</p>
      </div>
    </div>
  );
}

/** The one-liner with the new token, for Linux or Windows. Shown once: the console keeps only the token's hash. */
export function InstallCommand({ created }: { created: CreatedEnrollmentToken }) {
  const [platform, setPlatform] = useState<Platform>("linux");
  const command = platform === "linux" ? created.installCommand : created.windowsInstallCommand;
  const suffix = platform === "linux" ? "" : "-windows";
  const notes = installNotes(describeGatewayAddress(created.gatewayUrl), platform);
  return (
    <div className="grid gap-3 rounded-xl border border-primary/30 bg-primary/5 p-5" data-testid="install-command-panel">
      <div>
        <h3 className="font-semibold">
          {platform === "linux"
            ? "Run this on the server, as root or as a user who may use sudo"
            : "Run this on the server in PowerShell, as Administrator"}
        </h3>
        <p className="mt-1 text-sm text-muted-foreground">
          Copy it now: the token is shown only once. It enrols any number of servers until {formatDateTime(created.expiresAt)} or until you
          revoke it.
        </p>
      </div>
      <div role="tablist" aria-label="Server operating system" className="flex gap-1">
        {platforms.map((p) => (
          <button
            key={p.id}
            type="button"
            role="tab"
            aria-selected={platform === p.id}
            data-testid={`install-tab-${p.id}`}
            onClick={() => setPlatform(p.id)}
            className={`rounded-md px-3 py-1 text-sm font-medium ${platform === p.id ? "bg-foreground text-background" : "text-muted-foreground hover:bg-muted"}`}
          >
            {p.label}
          </button>
        ))}
      </div>
      {notes.map((note) => (
        <Note key={note.id} note={note} />
      ))}
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start" role="tabpanel">
        {command === null ? (
          <p className="flex-1 text-sm text-destructive" data-testid={`install-command${suffix}-unavailable`}>
            No gateway has recorded its signing key yet, and the Windows command checks the gateway&apos;s signature before it runs
            anything. Start the gateway (it records its key when it starts), then create a new token.
          </p>
        ) : (
          <>
            <pre
              className="min-w-0 flex-1 overflow-x-auto rounded-md bg-foreground px-4 py-3 font-mono text-sm text-background"
              data-testid={`install-command${suffix}`}
            >
              {command}
            </pre>
            <CopyButton value={command} label="Copy command" data-testid={`copy-install-command${suffix}`} />
          </>
        )}
      </div>
      {platform === "linux"
        ? repositoryInstalls.map((install) => <PackageRepositoryInstall key={install.manager} install={install} created={created} />)
        : null}
      {platform === "linux" ? (
        <p className="text-xs text-muted-foreground">
          The script installs the agent, exchanges the token for the server&apos;s own credential and starts it: as the{" "}
          <code>spindle-agent</code> systemd unit, or, without systemd (containers, WSL, minimal VMs), detached with its log in{" "}
          <code>/var/log/spindle/agent.log</code> and its pid in <code>/run/spindle/agent.pid</code>. Not as root, it asks sudo for the
          steps that need root. The server appears in the fleet within about 10 seconds. To stop and remove it:{" "}
          <code data-testid="uninstall-command">curl -fsSL {created.gatewayUrl.replace(/\/+$/, "")}/install.sh | sh -s -- --uninstall</code>
          .
        </p>
      ) : (
        <p className="text-xs text-muted-foreground">
          The command downloads <code>spindle-agent.exe</code> from the gateway, checks the gateway&apos;s ECDSA signature over SHA256SUMS
          against the key pinned in the command (it came from this console, not from the download), runs the agent only if its SHA-256
          matches the signed SHA256SUMS, and runs <code>spindle-agent.exe install</code>: it exchanges the token for the server&apos;s own
          credential, keeps its configuration in <code>%ProgramData%\Spindle</code> (SYSTEM and Administrators only) and starts the{" "}
          <code>SpindleAgent</code> service, which restarts on failure.{" "}
          <code>&quot;C:\Program Files\Spindle\spindle-agent.exe&quot; uninstall</code> removes it. Fleets that deploy MSIs:{" "}
          <code>msiexec /i spindle-agent-windows-amd64.msi /qn SPINDLE_GATEWAY=… SPINDLE_TOKEN=…</code> (from the gateway&apos;s{" "}
          <code>/download/</code>).
        </p>
      )}
    </div>
  );
}

/** What the page says of installing from one of the gateway's package repositories. */
interface RepositoryInstall {
  manager: PackageManager;
  distributions: string;
  /** What the first lines do to add the repository. */
  adds: ReactNode;
  upgrade: string;
  /** Where a server differs from the lines' assumptions, and what to run there instead. */
  otherwise: ReactNode;
}

/**
 * The other Linux choice: the gateway's signed package repositories, for teams that manage
 * servers with apt or dnf or with configuration management (upgrades then come with the package
 * manager). apt reads the signed InRelease, dnf the signed repomd.xml: both by the same key.
 */
const repositoryInstalls: RepositoryInstall[] = [
  {
    manager: "apt",
    distributions: "Debian, Ubuntu",
    adds: <>adds the gateway&apos;s signed repository and its key (trusted for this repository only)</>,
    upgrade: "apt-get upgrade",
    otherwise: (
      <>
        Without systemd, run <code>dpkg-reconfigure spindle-agent</code> instead of the last line.
      </>
    ),
  },
  {
    manager: "dnf",
    distributions: "Fedora, RHEL, Rocky, Alma, Amazon Linux",
    adds: (
      <>
        downloads the gateway&apos;s repository definition to <code>/etc/yum.repos.d/spindle.repo</code>, with which dnf checks the
        repository against the gateway&apos;s key (dnf prints its fingerprint when it imports it)
      </>
    ),
    upgrade: "dnf upgrade",
    otherwise: (
      <>
        Where only yum exists, run <code>yum install -y spindle-agent</code> instead of the dnf line.
      </>
    ),
  },
];

/** The lines that install the agent from one package repository, with the new token, and what they do. */
function PackageRepositoryInstall({ install, created }: { install: RepositoryInstall; created: CreatedEnrollmentToken }) {
  const lines = packageManagers[install.manager](created.gatewayUrl, created.token);
  return (
    <details className="rounded-md border bg-background px-3 py-2 text-sm" data-testid={`install-${install.manager}`}>
      <summary className="cursor-pointer font-medium">
        Install from our package repository ({install.distributions}: {install.manager})
      </summary>
      <p className="mt-2 text-muted-foreground">
        As root: {install.adds}, installs the <code>spindle-agent</code> package, enrols this server with the token and starts the agent.
        Later versions arrive with <code>{install.upgrade}</code>. {install.otherwise}
      </p>
      <div className="mt-2 flex flex-col gap-2 sm:flex-row sm:items-start">
        <pre
          className="min-w-0 flex-1 overflow-x-auto rounded-md bg-foreground px-4 py-3 font-mono text-sm text-background"
          data-testid={`install-command-${install.manager}`}
        >
          {lines}
        </pre>
        <CopyButton value={lines} label="Copy lines" data-testid={`copy-install-command-${install.manager}`} />
      </div>
    </details>
  );
}
