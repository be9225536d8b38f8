// The install panel as the server renders it for a new token: on the Linux tab, one block per
// package repository the gateway serves (apt, dnf), each showing, and copying, exactly the lines
// lib/install-command.ts gives for that package manager (lib/install-command.test.ts checks the
// lines; apps/gateway/internal/httpapi's aptrepo_test.go and yumrepo_test.go run them).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { CreatedEnrollmentToken } from "../types/enrollment-token";
import { packageManagers } from "../lib/install-command";
import { InstallCommand } from "./install-command";

const created: CreatedEnrollmentToken = {
  id: "tok-1",
  label: "",
  hint: "…xyz",
  status: "active",
  createdAt: "2026-11-29T06:00:00Z",
  expiresAt: "2026-11-30T06:00:00Z",
  revokedAt: null,
  uses: 0,
  lastUsedAt: null,
  token: "spe_AbC-123_xyz",
  gatewayUrl: "https://spindle-gw.example.com:4318/",
  installCommand: "script=…",
  windowsInstallCommand: null,
};

/** The text of the element with this data-testid (its children are text only), unescaped. */
function textOf(html: string, testId: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]* data-testid="${testId}"[^>]*>([^<]*)</\\1>`).exec(html);
  return match?.[2]
    ?.replaceAll("&#x27;", "'")
    .replaceAll("&quot;", '"')
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

describe("the install panel's package repositories", () => {
  const html = renderToStaticMarkup(createElement(InstallCommand, { created }));
  for (const [manager, lines] of Object.entries(packageManagers)) {
    it(`shows the ${manager} lines with the new token and the gateway`, () => {
      assert.ok(html.includes(`data-testid="install-${manager}"`), `no ${manager} block`);
      assert.equal(textOf(html, `install-command-${manager}`), lines(created.gatewayUrl, created.token));
      assert.match(html, new RegExp(`data-testid="copy-install-command-${manager}"`));
    });
  }
  it("names each package manager and its distributions in its summary", () => {
    assert.match(html, /Install from our package repository \(Debian, Ubuntu: apt\)/);
    assert.match(html, /Install from our package repository \(Fedora, RHEL, Rocky, Alma, Amazon Linux: dnf\)/);
    assert.match(html, /apt-get upgrade/);
    assert.match(html, /dnf upgrade/);
  });
});
