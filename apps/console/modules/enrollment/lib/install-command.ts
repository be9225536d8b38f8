/** The Linux one-liner the console shows next to a new token. */
export function installCommand(gatewayUrl: string, token: string): string {
  return `curl -fsSL ${gatewayUrl.replace(/\/+$/, "")}/install.sh | sudo sh -s -- --token ${token}`;
}
