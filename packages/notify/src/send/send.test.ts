// Senders against real receivers on loopback: an HTTP server and an SMTP server (smtp-server).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ChannelSettingsOf } from "../channel-kinds.js";
import { renderNotification, type EmailMessage, type HttpMessage } from "../render/index.js";
import { verifyStandardWebhook } from "../standard-webhooks.js";
import { firingNotice } from "../test-support/notices.js";
import { startHttpReceiver, startSmtpReceiver, unusedPort, type HttpReceiver } from "../testing.js";
import { DeliveryError } from "./errors.js";
import { sendRendered } from "./index.js";
import { isPrivateAddress } from "./target-guard.js";

const id = "0d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a";
const secret = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
const local = { allowPrivateNetworks: true, timeoutMs: 5000, notificationId: id };

function webhook(url: string): { message: HttpMessage; settings: ChannelSettingsOf<"webhook"> } {
  const settings: ChannelSettingsOf<"webhook"> = { kind: "webhook", config: { url }, secrets: { signingSecret: secret } };
  const message = renderNotification({ id, purpose: "alert", channelName: "hook", notice: firingNotice() }, settings, {
    consoleUrl: "https://c.example",
  });
  return { message: message as HttpMessage, settings };
}

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => assert.fail("expected the send to fail"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DeliveryError, `not a DeliveryError: ${String(error)}`);
  return error;
}

describe("HTTP sender", () => {
  let receiver: HttpReceiver;
  before(async () => {
    receiver = await startHttpReceiver();
  });
  after(() => receiver.close());

  it("posts the body with Standard Webhooks headers a receiver can verify", async () => {
    receiver.answerWith(() => ({ status: 204 }));
    const { message, settings } = webhook(`${receiver.url}/hook`);
    assert.equal(await sendRendered(message, settings, local), "HTTP 204");
    const [request] = receiver.requests.slice(-1);
    assert.equal(request!.path, "/hook");
    assert.equal(request!.headers["content-type"], "application/json");
    assert.equal(request!.headers["webhook-id"], id);
    const headers = {
      "webhook-id": String(request!.headers["webhook-id"]),
      "webhook-timestamp": String(request!.headers["webhook-timestamp"]),
      "webhook-signature": String(request!.headers["webhook-signature"]),
    };
    assert.ok(verifyStandardWebhook(secret, headers, request!.body), "signature does not verify");
  });

  it("classifies answers: 5xx, 408 and 429 retry (honouring Retry-After), other 4xx are permanent", async () => {
    const { message, settings } = webhook(`${receiver.url}/hook`);
    for (const [status, retryable] of [
      [500, true],
      [503, true],
      [408, true],
      [429, true],
      [400, false],
      [404, false],
      [410, false],
    ] as const) {
      receiver.answerWith(() => ({ status, body: `status ${status}`, headers: { "retry-after": "7" } }));
      const error = await failure(sendRendered(message, settings, local));
      assert.equal(error.retryable, retryable, `HTTP ${status}`);
      assert.equal(error.retryAfterSeconds, retryable ? 7 : undefined);
      assert.match(error.message, new RegExp(`answered ${status}: status ${status}`));
    }
  });

  it("gives up on a receiver that does not answer in time, as a retryable error", async () => {
    receiver.answerWith(() => "hang");
    const { message, settings } = webhook(`${receiver.url}/hook`);
    const error = await failure(sendRendered(message, settings, { ...local, timeoutMs: 300 }));
    assert.equal(error.retryable, true);
    assert.match(error.message, /no answer within 300 ms/);
  });

  it("treats a refused connection as retryable and never puts the URL's path (a secret for Slack) in the error", async () => {
    const { message, settings } = webhook(`http://127.0.0.1:${await unusedPort()}/services/T000/B000/secret-token`);
    const error = await failure(sendRendered(message, settings, local));
    assert.equal(error.retryable, true);
    assert.match(error.message, /ECONNREFUSED/);
    assert.doesNotMatch(error.message, /secret-token/);
  });

  it("refuses private targets and plain http unless private networks are allowed", async () => {
    const { message, settings } = webhook(`${receiver.url}/hook`);
    const before = receiver.requests.length;
    const http = await failure(sendRendered(message, settings, { ...local, allowPrivateNetworks: false }));
    assert.equal(http.retryable, false);
    assert.match(http.message, /only https:\/\//);
    const https = webhook("https://127.0.0.1:9/hook");
    const refused = await failure(sendRendered(https.message, https.settings, { ...local, allowPrivateNetworks: false }));
    assert.equal(refused.retryable, false);
    assert.match(refused.message, /private or local address.*SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS/);
    assert.equal(receiver.requests.length, before, "nothing was sent");
  });

  it("checks the addresses a host name resolves to when connecting", async () => {
    receiver.answerWith(() => ({ status: 200 }));
    const port = new URL(receiver.url).port;
    const byName = webhook(`http://localhost:${port}/by-name`);
    assert.equal(await sendRendered(byName.message, byName.settings, local), "HTTP 200");
    assert.equal(receiver.requests.at(-1)!.path, "/by-name");
    const guarded = webhook(`https://localhost:${port}/by-name`);
    const refused = await failure(sendRendered(guarded.message, guarded.settings, { ...local, allowPrivateNetworks: false }));
    assert.equal(refused.retryable, false);
    assert.match(refused.message, /localhost resolves to .*private or local address/);
  });

  it("refuses a body over the receiver's limit without sending it", async () => {
    const { message, settings } = webhook(`${receiver.url}/hook`);
    const error = await failure(sendRendered({ ...message, maxBodyBytes: 10 }, settings, local));
    assert.equal(error.retryable, false);
    assert.match(error.message, /over this receiver's limit of 10/);
  });

  it("knows which addresses are private", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "0.0.0.0",
    ]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      assert.equal(isPrivateAddress(address), false, address);
  });

  // Issue 25, L2: IPv6 forms that reach an IPv4 address, or a site's own network, were let through.
  it("sees the private IPv4 address inside NAT64, 6to4, IPv4-compatible, translated and ISATAP forms", () => {
    const privateForms = [
      "64:ff9b::a9fe:a9fe",
      "64:ff9b::169.254.169.254",
      "64:ff9b::10.0.0.1",
      "64:ff9b::7f00:1", // NAT64 (RFC 6052)
      "64:ff9b:1::8.8.8.8", // the local-use NAT64 prefix (RFC 8215)
      "::10.0.0.1",
      "::127.0.0.1",
      "::8.8.8.8",
      "::a9fe:a9fe", // IPv4-compatible (deprecated)
      "2002:a9fe:a9fe::1",
      "2002:0a00:0001::",
      "2002:c0a8:0101:1::1",
      "2002:7f00:1::", // 6to4 carrying private IPv4
      "::ffff:0:10.0.0.1",
      "::ffff:0:a9fe:a9fe", // IPv4-translated
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "[::ffff:127.0.0.1]", // IPv4-mapped, spelt either way
      "2001:db8:1::5efe:10.0.0.1",
      "2600::200:5efe:192.168.0.1", // ISATAP identifiers carrying private IPv4
      "fec0::1",
      "fec0:1:2:3::4",
      "feff::1", // site-local (deprecated) and the rest of fec0::/10
      "2001::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
      "2001:db8::1",
      "3fff::1",
      "2001:2::1",
      "2001:10::1",
      "2001:20::1",
      "100::1", // documentation, benchmarking, ORCHID, discard
      "fe80::1%eth0",
      "ff02::1",
      "192.0.2.1",
      "198.51.100.1",
      "203.0.113.1",
      "192.88.99.1",
      "255.255.255.255",
      "not-an-address",
    ];
    for (const address of privateForms) assert.equal(isPrivateAddress(address), true, address);
    const publicForms = ["64:ff9b::8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1", "2600::200:5efe:8.8.8.8", "2a00:1450:4001:80b::200e"];
    for (const address of publicForms) assert.equal(isPrivateAddress(address), false, address);
  });
});

describe("SMTP sender", () => {
  const settingsFor = (port: number): ChannelSettingsOf<"email"> => ({
    kind: "email",
    config: {
      host: "127.0.0.1",
      port,
      security: "opportunistic",
      username: null,
      from: "spindle@example.com",
      to: ["ops@example.com", "dba@example.com"],
    },
    secrets: { password: null },
  });
  const mailFor = (port: number) =>
    renderNotification({ id, purpose: "alert", channelName: "mail", notice: firingNotice() }, settingsFor(port), {
      consoleUrl: "https://c.example",
    }) as EmailMessage;

  it("delivers to a real SMTP server with the outbox id as Message-ID", async () => {
    const smtp = await startSmtpReceiver();
    try {
      const answer = await sendRendered(mailFor(smtp.port), settingsFor(smtp.port), local);
      assert.match(answer, /^accepted for 2 recipient\(s\): 250/);
      const [mail] = await smtp.waitForMessages(1);
      assert.deepEqual(mail!.to, ["ops@example.com", "dba@example.com"]);
      assert.equal(mail!.from, "spindle@example.com");
      assert.equal(mail!.headers.get("message-id"), `<${id}@notifications.spindle.invalid>`);
      assert.equal(mail!.headers.get("x-spindle-notification-id"), id);
      assert.equal(mail!.subject, "[FIRING · critical] p99 read latency high on db-01 nvme0n1");
    } finally {
      await smtp.close();
    }
  });

  it("retries 4xx replies and a server that is down, and not 5xx replies", async () => {
    for (const [code, retryable] of [
      [451, true],
      [550, false],
    ] as const) {
      const smtp = await startSmtpReceiver({ refuseRecipients: { code, message: `mailbox says ${code}` } });
      try {
        const error = await failure(sendRendered(mailFor(smtp.port), settingsFor(smtp.port), local));
        assert.equal(error.retryable, retryable, `SMTP ${code}`);
        assert.match(error.message, new RegExp(`mailbox says ${code}`));
      } finally {
        await smtp.close();
      }
    }
    const down = await unusedPort();
    const error = await failure(sendRendered(mailFor(down), settingsFor(down), local));
    assert.equal(error.retryable, true);
  });

  it("refuses an SMTP host on a private address unless allowed", async () => {
    const error = await failure(sendRendered(mailFor(25), settingsFor(25), { ...local, allowPrivateNetworks: false }));
    assert.equal(error.retryable, false);
    assert.match(error.message, /private or local address/);
  });
});
