import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createMailTransport, smtpOptions } from "./mail-transport";
import { invitationMessage, verifyEmailMessage } from "./messages";

describe("the local mailbox", () => {
  it("writes each message as an .eml file only its owner can read, with the kind in a header", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "spindle-mailbox-")), "mailbox");
    const transport = createMailTransport({ from: "Spindle <no-reply@localhost>", mailboxDir: dir });
    assert.equal(transport.isLocalMailbox, true);
    assert.equal(transport.destination, dir);
    await transport.send(verifyEmailMessage("ada@example.com", "Ada", "http://localhost:3000/api/auth/verify-email?token=abc", 24));
    const [file] = readdirSync(dir);
    assert.match(file!, /-verify-email-ada@example\.com-[a-z0-9]+\.eml$/);
    assert.equal(statSync(join(dir, file!)).mode & 0o777, 0o600);
    const raw = readFileSync(join(dir, file!), "utf8");
    assert.match(raw, /^To: ada@example\.com$/m);
    assert.match(raw, /^X-Spindle-Mail: verify-email$/m);
    assert.match(raw, /^Subject: Confirm your e-mail address for Spindle$/m);
    assert.match(raw, /verify-email\?token=3Dabc|verify-email\?token=abc/);
  });
});

describe("SMTP settings", () => {
  it("reads host, port, TLS and credentials from the URL", () => {
    assert.deepEqual(
      {
        ...smtpOptions("smtp://mailer:s%40cret@smtp.example.com:2525?starttls=required"),
        connectionTimeout: 0,
        greetingTimeout: 0,
        socketTimeout: 0,
      },
      {
        host: "smtp.example.com",
        port: 2525,
        secure: false,
        requireTLS: true,
        auth: { user: "mailer", pass: "s@cret" },
        connectionTimeout: 0,
        greetingTimeout: 0,
        socketTimeout: 0,
      },
    );
    const tls = smtpOptions("smtps://smtp.example.com");
    assert.equal(tls.port, 465);
    assert.equal(tls.secure, true);
    assert.equal(tls.auth, undefined);
  });
});

describe("messages", () => {
  it("escape what users typed in the HTML and keep it readable in the text", () => {
    const mail = invitationMessage("bo@example.com", "Eve <script>", "Acme & Co", "viewer", "http://localhost:3000/invite/x?proof=y", 7);
    assert.match(mail.subject, /Eve <script> invited you to Acme & Co/);
    assert.doesNotMatch(mail.html, /<script>/);
    assert.match(mail.html, /Eve &lt;script&gt;/);
    assert.match(mail.text, /Join Acme & Co: http:\/\/localhost:3000\/invite\/x\?proof=y/);
  });
});
