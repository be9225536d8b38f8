// The Linux and Windows one-liners' text and structure (the Linux one runs verbatim in
// e2e/tests/spine.spec.ts and e2e/integration/install-command.test.ts), and the Windows one's
// signature check done as .NET does it. PowerShell cannot be installed here, so this checks what
// the command says and runs the same verification in Node (test-support/windows-signature.ts:
// CNG's ECCPUBLIC blob, SHA-256, IEEE P1363); e2e/integration/windows-agent.test.ts checks that
// every URL it names is served by the real gateway, that the gateway's own signature passes that
// check with the key the console pins, and runs the agent's `install` under Wine.
import assert from "node:assert/strict";
import { generateKeyPairSync, sign } from "node:crypto";
import { describe, it } from "node:test";
import { pinnedKeysOf, verifiesAsWindows } from "@/test-support/windows-signature";
import {
  aptInstallCommands,
  aptKeyring,
  dnfInstallCommands,
  eccPublicBlob,
  installCommand,
  windowsAgentDownload,
  windowsInstallCommand,
} from "./install-command";

const token = "spe_AbC-123_xyz";

function p256() {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
  return {
    blob: eccPublicBlob(point).toString("base64"),
    sign: (data: Buffer) => sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" }),
  };
}

describe("windowsInstallCommand", () => {
  const gatewayKey = p256();
  const command = windowsInstallCommand("https://spindle.example.com:4318/", token, [gatewayKey.blob]);
  const statements = command.split("; ");
  const at = (text: string) => {
    const index = command.indexOf(text);
    assert.ok(index >= 0, `the command has ${text}`);
    return index;
  };

  it("is one line of statements that stop at the first error", () => {
    assert.ok(!command.includes("\n"));
    assert.equal(statements[0], "$ErrorActionPreference='Stop'");
  });

  it("downloads the agent, SHA256SUMS and its P-256 signature from the gateway, without a trailing slash", () => {
    assert.ok(statements.includes("$g='https://spindle.example.com:4318'"));
    assert.ok(statements.includes(`$n='${windowsAgentDownload}'`));
    assert.ok(statements.includes('Invoke-WebRequest -UseBasicParsing "$g/download/$n" -OutFile $f'));
    assert.ok(statements.includes('Invoke-WebRequest -UseBasicParsing "$g/download/SHA256SUMS" -OutFile "$f.sums"'));
    assert.ok(statements.includes('Invoke-WebRequest -UseBasicParsing "$g/download/SHA256SUMS.p256.sig" -OutFile "$f.sig"'));
  });

  it("pins the keys it was given and checks the signature over the exact bytes with .NET's ECDsaCng", () => {
    assert.deepEqual(pinnedKeysOf(command), [gatewayKey.blob]);
    const verify = at("VerifyData($sb,$sg,[Security.Cryptography.HashAlgorithmName]::SHA256)");
    assert.ok(at("[Security.Cryptography.CngKeyBlobFormat]::EccPublicBlob") < verify);
    assert.ok(at('$sb=[IO.File]::ReadAllBytes("$f.sums")') < verify && at('$sg=[IO.File]::ReadAllBytes("$f.sig")') < verify);
    assert.ok(at("if (-not $ok) { Remove-Item $f; throw ") > verify);
    // The sums the hash is looked up in are the bytes that were verified.
    assert.ok(at("$s=[Text.Encoding]::ASCII.GetString($sb)") > at("if (-not $ok)"));
  });

  it("runs the agent only after the signature and then its SHA-256 were checked", () => {
    const signature = at("if (-not $ok) {");
    const hash = at("$h=(Get-FileHash $f -Algorithm SHA256).Hash.ToLower();");
    const check = at('if (-not (($s -split "`n") -contains "$h  $n")) { Remove-Item $f; throw ');
    const run = at("& $f install");
    assert.ok(signature < hash && hash < check && check < run, command);
    assert.ok(!/\$\w+:/.test(command.replace(/\$env:TEMP/g, "")), 'no "$name:" that PowerShell would read as a scope');
  });

  it("accepts SHA256SUMS signed by a pinned key and nothing else, as .NET verifies it", () => {
    const sums = Buffer.from(`${"a".repeat(64)}  ${windowsAgentDownload}\n`);
    const keys = pinnedKeysOf(command);
    assert.equal(verifiesAsWindows(sums, gatewayKey.sign(sums), keys), true);
    assert.equal(verifiesAsWindows(Buffer.from(sums.toString().replace("a", "b")), gatewayKey.sign(sums), keys), false, "changed sums");
    assert.equal(verifiesAsWindows(sums, p256().sign(sums), keys), false, "signed by another key");
    const rotated = windowsInstallCommand("https://gw.example.com", token, [p256().blob, gatewayKey.blob]);
    assert.equal(verifiesAsWindows(sums, gatewayKey.sign(sums), pinnedKeysOf(rotated)), true, "any pinned key");
  });

  it("hands the token to install on standard input, never as an argument", () => {
    const last = statements.at(-1)!;
    assert.equal(last, `'${token}' | & $f install --token-file - --gateway $g`);
    assert.ok(!command.includes("--token "), "the token must not be an argument");
  });

  it("quotes values so PowerShell expands nothing in them, and refuses to render without a key", () => {
    const odd = windowsInstallCommand("https://gw.example.com/$(calc)'x", "spe_a'b", [gatewayKey.blob]);
    assert.ok(odd.includes("$g='https://gw.example.com/$(calc)''x'"));
    assert.ok(odd.includes("'spe_a''b' | & $f install"));
    assert.throws(() => windowsInstallCommand("https://gw.example.com", token, []), /no gateway signing key to pin/);
  });
});

describe("installCommand (Linux)", () => {
  const gatewayKey = p256();
  it("runs install.sh with sh, not sudo, so one line serves root without sudo and users with sudo", () => {
    assert.equal(
      installCommand("https://gw.example.com/", token),
      `script=$(curl -fsSL https://gw.example.com/install.sh) && printf '%s\\n' '${token}' | sh -c "$script" spindle-install --token-stdin`,
    );
  });

  it("carries --allow-http for a plain-http gateway that is not a loopback address, on both platforms", () => {
    assert.ok(installCommand("http://vm:4318", token).endsWith("spindle-install --token-stdin --allow-http"));
    assert.ok(
      windowsInstallCommand("http://vm:4318", token, [gatewayKey.blob]).endsWith("install --token-file - --gateway $g --allow-http"),
    );
    for (const url of ["http://127.0.0.1:4318", "https://vm:4318"]) {
      assert.ok(!installCommand(url, token).includes("--allow-http"), url);
      assert.ok(!windowsInstallCommand(url, token, [gatewayKey.blob]).includes("--allow-http"), url);
    }
  });
});

// The apt lines: the key and source the gateway's own test (apps/gateway/internal/httpapi/
// aptrepo_test.go) runs apt-get against, for the gateway's own URL whatever its transport, and
// the token only on standard input.
describe("aptInstallCommands", () => {
  for (const url of ["https://spindle.example.com:4318/", "http://10.0.0.5:4318"]) {
    const base = url.replace(/\/+$/, "");
    const lines = aptInstallCommands(url, token).split("\n");
    it(`adds the signed repository of ${base} and installs the package`, () => {
      assert.deepEqual(lines.slice(0, 3), [
        `curl -fsSL -o ${aptKeyring} ${base}/apt/spindle-archive-keyring.gpg`,
        `echo 'deb [signed-by=${aptKeyring}] ${base}/apt stable main' > /etc/apt/sources.list.d/spindle.list`,
        "apt-get update && apt-get install -y spindle-agent",
      ]);
    });
    it(`enrols with ${base} from the token on standard input, then starts the agent`, () => {
      assert.equal(lines[3], `printf '%s\\n' '${token}' | spindle-agent enroll --token-file - --gateway ${base}`);
      assert.equal(lines[4], "systemctl start spindle-agent");
      assert.equal(lines.length, 5);
    });
  }
});

// The dnf lines: the .repo file downloaded from the gateway's /yum/ (which writes it naming
// itself: apps/gateway/internal/pkgrepo; apps/gateway/internal/httpapi/yumrepo_test.go runs the
// same download and dnf against it), then the same enrolment as the apt lines, the token only on
// standard input.
describe("dnfInstallCommands", () => {
  for (const url of ["https://spindle.example.com:4318/", "http://10.0.0.5:4318"]) {
    const base = url.replace(/\/+$/, "");
    const lines = dnfInstallCommands(url, token).split("\n");
    it(`adds the repository of ${base} with the gateway's .repo file and installs the package`, () => {
      assert.deepEqual(lines, [
        `curl -fsSL -o /etc/yum.repos.d/spindle.repo ${base}/yum/spindle.repo`,
        "dnf install -y spindle-agent",
        `printf '%s\\n' '${token}' | spindle-agent enroll --token-file - --gateway ${base}`,
        "systemctl start spindle-agent",
      ]);
    });
  }
});
