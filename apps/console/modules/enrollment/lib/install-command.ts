import { describeGatewayAddress, needsAllowHttp } from "./gateway-address";

/**
 * The Linux one-liner the console shows next to a new token. The token never appears on a
 * command line, where every local user can read it (/proc/PID/cmdline): printf is a shell
 * builtin, and the token reaches install.sh (and the agent) on standard input. The script is
 * fetched first so that a failed download stops the command instead of running nothing. It is
 * run by plain `sh`, so the same line works as root (where sudo may not exist) and as a user with
 * sudo: install.sh takes root rights through sudo itself for the steps that need them.
 * A plain-http gateway on another host needs --allow-http (gateway-address.ts).
 */
export function installCommand(gatewayUrl: string, token: string): string {
  const gateway = describeGatewayAddress(gatewayUrl);
  const allowHttp = needsAllowHttp(gateway) ? " --allow-http" : "";
  return `script=$(curl -fsSL ${gateway.url}/install.sh) && printf '%s\\n' '${token}' | sh -c "$script" spindle-install --token-stdin${allowHttp}`;
}

/** The Windows agent the PowerShell one-liner downloads (the gateway also serves an .msi). */
export const windowsAgentDownload = "spindle-agent-windows-amd64.exe";

/**
 * The Windows one-liner, for an elevated PowerShell (5.1 or 7). It downloads the agent from the
 * gateway, refuses it unless its SHA-256 is the one SHA256SUMS lists, and runs
 * `spindle-agent.exe install`, where all the logic lives (enrol, secure, register and start the
 * service). The token goes to the agent on standard input, not on its command line. Windows
 * PowerShell has no Ed25519, so the gateway's signature over SHA256SUMS (which install.sh
 * checks) is not checked here: the sums come over the same HTTPS connection as the agent.
 * Tls12 is added for Windows PowerShell 5.1, whose default on older servers is TLS 1.0. Inside
 * double quotes a variable is never followed by ":" (PowerShell would read "$g:" as a scope).
 */
export function windowsInstallCommand(gatewayUrl: string, token: string): string {
  const gateway = describeGatewayAddress(gatewayUrl);
  const base = gateway.url;
  return [
    "$ErrorActionPreference='Stop'",
    "[Net.ServicePointManager]::SecurityProtocol=[Net.ServicePointManager]::SecurityProtocol -bor 3072",
    `$g=${psQuote(base)}`,
    `$n='${windowsAgentDownload}'`,
    "$f=Join-Path $env:TEMP $n",
    'Invoke-WebRequest -UseBasicParsing "$g/download/$n" -OutFile $f',
    '$s=(Invoke-WebRequest -UseBasicParsing "$g/download/SHA256SUMS").Content',
    '$h=(Get-FileHash $f -Algorithm SHA256).Hash.ToLower()',
    'if (-not (($s -split "`n") -contains "$h  $n")) { Remove-Item $f; throw "$n does not match the SHA256SUMS of the gateway $g, so it was not run" }',
    `${psQuote(token)} | & $f install --token-file - --gateway $g${needsAllowHttp(gateway) ? " --allow-http" : ""}`,
  ].join("; ");
}

/** A PowerShell single-quoted string: nothing inside is expanded; a quote is doubled. */
function psQuote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
