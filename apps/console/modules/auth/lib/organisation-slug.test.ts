import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { organisationSlug } from "./organisation-slug";

describe("organisationSlug", () => {
  it("lowercases, strips accents and joins words with dashes", () => {
    assert.equal(organisationSlug("  Société Générale Storage! ", "abc123"), "societe-generale-storage-abc123");
  });

  it("falls back to 'org' for names without letters or digits", () => {
    assert.equal(organisationSlug("!!!", "abc123"), "org-abc123");
  });

  it("adds a random suffix so two organisations may share a name", () => {
    assert.notEqual(organisationSlug("Acme"), organisationSlug("Acme"));
  });
});
