// The commands the console shows for installing the agent from the gateway's package
// repositories (docs/install.md, "Packages"): apt, dnf/yum, and the Helm chart's DaemonSet.
// Pure functions without imports, so the package tests run exactly what the page renders.
// The token never appears on a command line other users can read: printf is a shell builtin,
// and the enrolment file is written under umask 077 by a root shell that reads it on stdin.

export interface PackageCommands {
  apt: string;
  dnf: string;
  kubernetes: string;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** Writes /etc/spindle/enrolment-token, which the packaged agent exchanges at its first start. */
function enrolmentFile(gateway: string, token: string): string {
  return `sudo install -d -m 0700 /etc/spindle && printf 'gateway: %s\\ntoken: %s\\n' ${shellQuote(gateway)} ${shellQuote(token)} | sudo sh -c 'umask 077 && cat >/etc/spindle/enrolment-token'`;
}

export function packageCommands(gatewayUrl: string, token: string): PackageCommands {
  const gateway = gatewayUrl.replace(/\/+$/, "");
  const apt = [
    `sudo install -d -m 0755 /etc/apt/keyrings && curl -fsSL ${gateway}/apt/spindle.asc | sudo tee /etc/apt/keyrings/spindle.asc >/dev/null`,
    `echo 'deb [signed-by=/etc/apt/keyrings/spindle.asc] ${gateway}/apt stable main' | sudo tee /etc/apt/sources.list.d/spindle.list >/dev/null`,
    enrolmentFile(gateway, token),
    "sudo apt-get update && sudo apt-get install -y spindle-agent",
  ].join("\n");
  const dnf = [
    `printf '[spindle]\\nname=Spindle agent\\nbaseurl=%s/yum\\nenabled=1\\ngpgcheck=0\\nrepo_gpgcheck=1\\ngpgkey=%s/yum/spindle.asc\\n' ${shellQuote(gateway)} ${shellQuote(gateway)} | sudo tee /etc/yum.repos.d/spindle.repo >/dev/null`,
    enrolmentFile(gateway, token),
    "sudo dnf install -y spindle-agent",
  ].join("\n");
  const kubernetes = [
    "kubectl create namespace spindle-agent",
    `printf '%s' ${shellQuote(token)} | kubectl -n spindle-agent create secret generic spindle-agent-enrolment --from-file=token=/dev/stdin`,
    `helm upgrade --install spindle-agent infra/helm/spindle -n spindle-agent --set backend.enabled=false --set agent.enabled=true --set gatewayUrl=${shellQuote(gateway)}`,
  ].join("\n");
  return { apt, dnf, kubernetes };
}
