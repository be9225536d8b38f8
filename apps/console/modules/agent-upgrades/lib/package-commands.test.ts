import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packageCommands } from "./package-commands";

describe("package install commands", () => {
  const commands = packageCommands("https://gw.example.com:4318/", "spe_abc'def");
  it("adds the gateway's signed apt repository and installs from it", () => {
    assert.match(commands.apt, /^sudo install -d -m 0755 \/etc\/apt\/keyrings && curl -fsSL https:\/\/gw\.example\.com:4318\/apt\/spindle\.asc/);
    assert.ok(commands.apt.includes("deb [signed-by=/etc/apt/keyrings/spindle.asc] https://gw.example.com:4318/apt stable main"));
    assert.ok(commands.apt.endsWith("sudo apt-get update && sudo apt-get install -y spindle-agent"));
  });
  it("writes the enrolment file under umask 077, the token quoted and never an argument of a program", () => {
    for (const text of [commands.apt, commands.dnf]) {
      assert.ok(text.includes(`printf 'gateway: %s\\ntoken: %s\\n' 'https://gw.example.com:4318' 'spe_abc'\\''def' | sudo sh -c 'umask 077 && cat >/etc/spindle/enrolment-token'`));
    }
    assert.ok(commands.kubernetes.includes(`printf '%s' 'spe_abc'\\''def' | kubectl -n spindle-agent create secret generic spindle-agent-enrolment --from-file=token=/dev/stdin`));
  });
  it("points dnf at the signed repodata and the chart at the gateway", () => {
    assert.ok(commands.dnf.includes("baseurl=%s/yum") && commands.dnf.includes("repo_gpgcheck=1"));
    assert.ok(commands.kubernetes.includes("--set agent.enabled=true --set gatewayUrl='https://gw.example.com:4318'"));
  });
});
