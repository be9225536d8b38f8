/**
 * The Linux one-liner the console shows next to a new token. The token never appears on a
 * command line, where every local user can read it (/proc/PID/cmdline): printf is a shell
 * builtin, and the token reaches install.sh (and the agent) on standard input. The script is
 * fetched first so that a failed download stops the command instead of running nothing.
 */
export function installCommand(gatewayUrl: string, token: string): string {
  const base = gatewayUrl.replace(/\/+$/, "");
  return `script=$(curl -fsSL ${base}/install.sh) && printf '%s\\n' '${token}' | sudo sh -c "$script" spindle-install --token-stdin`;
}
