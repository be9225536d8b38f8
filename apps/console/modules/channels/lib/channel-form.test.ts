import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alertSeverities } from "@spindle/domain";
import { channelKinds, parseChannelSettings, severities } from "@spindle/notify";
import { channelFormFrom, configOf, emptyChannelForm, formKinds, secretsOf } from "./channel-form";

describe("the channel form", () => {
  it("offers every kind @spindle/notify knows, and the same severities as alerts", () => {
    assert.deepEqual([...formKinds].sort(), [...channelKinds].sort());
    assert.deepEqual([...alertSeverities], [...severities]);
  });

  it("builds settings the notify schemas accept, per kind", () => {
    const email = {
      ...emptyChannelForm("email"),
      host: "smtp.example.com",
      from: "spindle@example.com",
      to: "a@example.com, b@example.com",
    };
    assert.deepEqual(
      parseChannelSettings({ kind: "email", config: configOf(email), secrets: secretsOf(email) ?? { password: null } }).config,
      {
        host: "smtp.example.com",
        port: 587,
        security: "starttls",
        username: null,
        from: "spindle@example.com",
        to: ["a@example.com", "b@example.com"],
      },
    );
    const pd = { ...emptyChannelForm("pagerduty"), routingKey: "a".repeat(32) };
    assert.equal(parseChannelSettings({ kind: "pagerduty", config: configOf(pd), secrets: secretsOf(pd) }).kind, "pagerduty");
  });

  it("leaves blank secrets out, so an edit keeps the stored ones", () => {
    assert.equal(secretsOf(emptyChannelForm("slack")), null);
    assert.equal(secretsOf(emptyChannelForm("webhook")), null);
  });

  it("fills an edit from the stored config, never from secrets", () => {
    const form = channelFormFrom({
      name: "Mail",
      kind: "email",
      config: { host: "h", port: 465, security: "tls", username: null, from: "f@x.io", to: ["a@x.io"] },
    });
    assert.equal(form.port, "465");
    assert.equal(form.to, "a@x.io");
    assert.equal(form.password, "");
  });
});
