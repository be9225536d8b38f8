"use client";
import { useState } from "react";
import type { PolicyVersionSummary } from "../types/policy";
import { PolicyEditor, type EditorDelivery } from "./policy-editor";
import { VersionHistory } from "./version-history";

/** The editor and the version history share one draft, so an old version can be loaded and saved again. */
export function PolicyWorkspace({
  policyId,
  versions,
  canEdit,
  delivery,
}: {
  policyId: string;
  versions: PolicyVersionSummary[];
  canEdit: boolean;
  delivery: EditorDelivery;
}) {
  const latest = versions[0]!;
  const [draft, setDraft] = useState<unknown>(latest.document);
  return (
    <div className="grid gap-6">
      <PolicyEditor
        key={policyId}
        policyId={policyId}
        latest={latest}
        draft={draft}
        onDraftChange={setDraft}
        readOnly={!canEdit}
        delivery={delivery}
      />
      <VersionHistory
        key={latest.version}
        policyId={policyId}
        versions={versions}
        canEdit={canEdit}
        onRestore={(version) => {
          setDraft(structuredClone(version.document));
          window.scrollTo({ top: 0, behavior: "smooth" });
        }}
      />
    </div>
  );
}
