// The Linux and Windows one-liners' text and structure (the Linux one runs verbatim in
// e2e/tests/spine.spec.ts and e2e/integration/install-command.test.ts). For Windows: PowerShell cannot be installed here, so this
// checks what the command says; e2e/integration/windows-agent.test.ts checks that every URL it
// names is served by the real gateway and runs the agent's `install` under Wine.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { installCommand, windowsAgentDownload, windowsInstallCommand } from "./install-command";

const token = "spe_AbC-123_xyz";

describe("windowsInstallCommand", () => {
  const command = windowsInstallCommand("https://spindle.example.com:4318/", token);
  const statements = command.split("; ");

  it("is one line of statements that stop at the first error", () => {
    assert.ok(!command.includes("\n"));
    assert.equal(statements[0], "$ErrorActionPreference='Stop'");
  });

  it("downloads the agent and SHA256SUMS from the gateway, without a trailing slash", () => {
    assert.ok(statements.includes("$g='https://spindle.example.com:4318'"));
    assert.ok(statements.includes(`$n='${windowsAgentDownload}'`));
    assert.ok(statements.includes('Invoke-WebRequest -UseBasicParsing "$g/download/$n" -OutFile $f'));
    assert.ok(statements.includes('$s=(Invoke-WebRequest -UseBasicParsing "$g/download/SHA256SUMS").Content'));
  });

  it("runs the agent only after its SHA-256 matched the line SHA256SUMS has for it", () => {
    const hash = command.indexOf("$h=(Get-FileHash $f -Algorithm SHA256).Hash.ToLower();");
    const check = command.indexOf('if (-not (($s -split "`n") -contains "$h  $n")) { Remove-Item $f; throw ');
    const run = command.indexOf("& $f install");
    assert.ok(hash > 0 && check > hash && run > check, command);
    assert.ok(!/\$\w+:/.test(command.replace(/\$env:TEMP/g, "")), "no \"$name:\" that PowerShell would read as a scope");
  });

  it("hands the token to install on standard input, never as an argument", () => {
    const last = statements.at(-1)!;
    assert.equal(last, `'${token}' | & $f install --token-file - --gateway $g`);
    assert.ok(!command.includes("--token "), "the token must not be an argument");
  });

  it("quotes values so PowerShell expands nothing in them", () => {
    const odd = windowsInstallCommand("https://gw.example.com/$(calc)'x", "spe_a'b");
    assert.ok(odd.includes("$g='https://gw.example.com/$(calc)''x'"));
    assert.ok(odd.includes("'spe_a''b' | & $f install"));
  });
});

describe("installCommand (Linux)", () => {
  it("runs install.sh with sh, not sudo, so one line serves root without sudo and users with sudo", () => {
    assert.equal(installCommand("https://gw.example.com/", token),
      `script=$(curl -fsSL https://gw.example.com/install.sh) && printf '%s\\n' '${token}' | sh -c "$script" spindle-install --token-stdin`);
  });

  it("carries --allow-http for a plain-http gateway that is not a loopback address, on both platforms", () => {
    assert.ok(installCommand("http://vm:4318", token).endsWith("spindle-install --token-stdin --allow-http"));
    assert.ok(windowsInstallCommand("http://vm:4318", token).endsWith("install --token-file - --gateway $g --allow-http"));
    for (const url of ["http://127.0.0.1:4318", "https://vm:4318"]) {
      assert.ok(!installCommand(url, token).includes("--allow-http"), url);
      assert.ok(!windowsInstallCommand(url, token).includes("--allow-http"), url);
    }
  });
});
