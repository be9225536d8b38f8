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

/** Where the apt lines put the gateway's repository key, and the source that names it. */
export const aptKeyring = "/usr/share/keyrings/spindle-archive-keyring.gpg";
export const aptSourcesFile = "/etc/apt/sources.list.d/spindle.list";

/**
 * The lines that add the gateway's apt repository and install the agent's .deb from it (Debian,
 * Ubuntu), run as root. The repository's Release is signed with the gateway's OpenPGP key, which
 * the first line puts in /usr/share/keyrings and the source line names with signed-by, so apt
 * trusts that key for this repository only. apt checks the signature whatever the transport, so
 * an http:// gateway needs no flag (the key itself then comes over plain http: the page's
 * transport note says so). The package does not enrol: the token reaches `spindle-agent enroll`
 * on standard input, never on a command line, then the unit the package enabled is started.
 * apps/gateway/internal/httpapi/aptrepo_test.go runs the same key, source and apt-get steps
 * against the gateway on loopback.
 */
export function aptInstallCommands(gatewayUrl: string, token: string): string {
  const { url } = describeGatewayAddress(gatewayUrl);
  return [
    `curl -fsSL -o ${aptKeyring} ${url}/apt/spindle-archive-keyring.gpg`,
    `echo 'deb [signed-by=${aptKeyring}] ${url}/apt stable main' > ${aptSourcesFile}`,
    "apt-get update && apt-get install -y spindle-agent",
    `printf '%s\\n' '${token}' | spindle-agent enroll --token-file - --gateway ${url}`,
    "systemctl start spindle-agent",
  ].join("\n");
}

/** Where the dnf lines put the gateway's repository definition. */
export const dnfRepoPath = "/etc/yum.repos.d/spindle.repo";

/**
 * The lines that add the gateway's yum/dnf repository and install the agent's .rpm from it
 * (Fedora, RHEL and its rebuilds, Amazon Linux), run as root: the .repo file downloaded from the
 * gateway, which writes it naming its own public URL (apps/gateway/internal/pkgrepo, yum.go: the
 * one copy of its text; repo_gpgcheck on, so dnf checks repomd.xml's signature with the key it
 * imports from the gateway and prints its fingerprint), then dnf install, then the same enrolment
 * and start as the apt lines, the token on standard input. apps/gateway/internal/httpapi/
 * yumrepo_test.go runs the same download and dnf against the gateway on loopback.
 */
export function dnfInstallCommands(gatewayUrl: string, token: string): string {
  const { url } = describeGatewayAddress(gatewayUrl);
  return [
    `curl -fsSL -o ${dnfRepoPath} ${url}/yum/spindle.repo`,
    "dnf install -y spindle-agent",
    `printf '%s\\n' '${token}' | spindle-agent enroll --token-file - --gateway ${url}`,
    "systemctl start spindle-agent",
  ].join("\n");
}

/** The package managers whose repositories the gateway serves, and the lines that install from each. */
export const packageManagers = {
  apt: aptInstallCommands,
  dnf: dnfInstallCommands,
} as const satisfies Record<string, (gatewayUrl: string, token: string) => string>;

export type PackageManager = keyof typeof packageManagers;

/** The Windows agent the PowerShell one-liner downloads (the gateway also serves an .msi). */
export const windowsAgentDownload = "spindle-agent-windows-amd64.exe";

/**
 * The Windows one-liner, for an elevated PowerShell (Windows PowerShell 5.1 on .NET Framework
 * 4.6.1 or later, or PowerShell 7). It downloads the agent, SHA256SUMS and the gateway's ECDSA
 * P-256 signature over SHA256SUMS; checks the signature with .NET (ECDsaCng, what Windows ships:
 * it has no Ed25519, which install.sh checks) against the keys the console pins here
 * (signing-keys.ts), so the check does not rest on the connection the files came over; then
 * refuses the agent unless its SHA-256 is the one the signed SHA256SUMS lists; then runs
 * `spindle-agent.exe install`, where all the logic lives (enrol, secure, register and start the
 * service). The token goes to the agent on standard input, not on its command line. The sums and
 * signature are read as bytes from files, exactly as signed. Tls12 is added for Windows
 * PowerShell 5.1, whose default on older servers is TLS 1.0. Inside double quotes a variable is
 * never followed by ":" (PowerShell would read "$g:" as a scope).
 */
export function windowsInstallCommand(gatewayUrl: string, token: string, pinnedKeys: readonly string[]): string {
  if (pinnedKeys.length === 0) throw new Error("no gateway signing key to pin: the Windows command checks the gateway's signature");
  const gateway = describeGatewayAddress(gatewayUrl);
  const base = gateway.url;
  const cng =
    "[Security.Cryptography.CngKey]::Import([Convert]::FromBase64String($k),[Security.Cryptography.CngKeyBlobFormat]::EccPublicBlob)";
  return [
    "$ErrorActionPreference='Stop'",
    "[Net.ServicePointManager]::SecurityProtocol=[Net.ServicePointManager]::SecurityProtocol -bor 3072",
    `$g=${psQuote(base)}`,
    `$n='${windowsAgentDownload}'`,
    "$f=Join-Path $env:TEMP $n",
    `$ks=@(${pinnedKeys.map(psQuote).join(",")})`,
    'Invoke-WebRequest -UseBasicParsing "$g/download/$n" -OutFile $f',
    'Invoke-WebRequest -UseBasicParsing "$g/download/SHA256SUMS" -OutFile "$f.sums"',
    'Invoke-WebRequest -UseBasicParsing "$g/download/SHA256SUMS.p256.sig" -OutFile "$f.sig"',
    '$sb=[IO.File]::ReadAllBytes("$f.sums")',
    '$sg=[IO.File]::ReadAllBytes("$f.sig")',
    "$ok=$false",
    `foreach ($k in $ks) { if ((New-Object Security.Cryptography.ECDsaCng(${cng})).VerifyData($sb,$sg,[Security.Cryptography.HashAlgorithmName]::SHA256)) { $ok=$true } }`,
    'if (-not $ok) { Remove-Item $f; throw "SHA256SUMS of the gateway $g is not signed by the key this command pins, so $n was not run" }',
    "$s=[Text.Encoding]::ASCII.GetString($sb)",
    "$h=(Get-FileHash $f -Algorithm SHA256).Hash.ToLower()",
    'if (-not (($s -split "`n") -contains "$h  $n")) { Remove-Item $f; throw "$n does not match the signed SHA256SUMS of the gateway $g, so it was not run" }',
    `${psQuote(token)} | & $f install --token-file - --gateway $g${needsAllowHttp(gateway) ? " --allow-http" : ""}`,
  ].join("; ");
}

/** A PowerShell single-quoted string: nothing inside is expanded; a quote is doubled. */
function psQuote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Windows' BCRYPT_ECCPUBLIC_BLOB of an uncompressed P-256 point ("ECS1", 32, X, Y): what
 * CngKey.Import(…, CngKeyBlobFormat.EccPublicBlob) takes in the one-liner.
 */
export function eccPublicBlob(point: Uint8Array): Buffer {
  if (point.length !== 65 || point[0] !== 4) throw new Error(`a P-256 public key is 65 bytes starting 0x04, not ${point.length} bytes`);
  const blob = Buffer.alloc(72);
  blob.writeUInt32LE(0x31534345, 0); // BCRYPT_ECDSA_PUBLIC_P256_MAGIC
  blob.writeUInt32LE(32, 4);
  Buffer.from(point.subarray(1)).copy(blob, 8);
  return blob;
}
