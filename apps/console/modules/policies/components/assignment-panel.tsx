"use client";
import { X } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import type { AssignmentScope, AssignmentSummary } from "../types/policy";
import { AssignmentLabel } from "./assignment-label";
import { sendJson } from "./send-json";
import { DeliveryChoice, type DeliveryState } from "@/modules/rollouts/components/delivery-choice";
import { defaultDeliveryMode, reachOf } from "@/modules/rollouts/lib/reach";
import { RolloutStarted } from "@/modules/rollouts/components/rollout-started";
import type { ChangeOutcome } from "@/modules/rollouts/types/rollout";

interface Props {
  policyId: string;
  archived: boolean;
  assignments: AssignmentSummary[];
  /** Every assignment of the organisation, to say what an assignment would replace. */
  orgAssignments: AssignmentSummary[];
  servers: { id: string; hostname: string; tags: string[] }[];
  knownTags: string[];
  canEdit: boolean;
  rolloutsRequired: boolean;
}

/** Where this policy applies, and assigning it to the organisation default, a tag or a server. */
export function AssignmentPanel({ policyId, archived, assignments, orgAssignments, servers, knownTags, canEdit, rolloutsRequired }: Props) {
  const router = useRouter();
  const [scope, setScope] = useState<AssignmentScope>("tag");
  const [tag, setTag] = useState("");
  const [serverId, setServerId] = useState(servers[0]?.id ?? "");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const normalisedTag = tag.trim().toLowerCase();
  const current = orgAssignments.find(
    (a) => a.scope === scope && (scope === "organization" || (scope === "tag" ? a.tag === normalisedTag : a.serverId === serverId)),
  );
  const replaces = current && current.policyId !== policyId ? current.policyName : null;
  const reach = reachOf([{ scope, tag: scope === "tag" ? normalisedTag : null, serverId: scope === "server" ? serverId : null }], servers);
  const [delivery, setDelivery] = useState<DeliveryState | null>(null);
  const [started, setStarted] = useState<ChangeOutcome | null>(null);

  async function run(request: Promise<{ ok: true; data: { delivery?: ChangeOutcome } } | { ok: false; message?: string }>) {
    setPending(true);
    setError(null);
    const result = await request;
    setPending(false);
    if (!result.ok) return setError(result.message ?? "That did not work.");
    setTag("");
    setStarted(result.data.delivery ?? null);
    router.refresh();
  }

  function assign(event: FormEvent) {
    event.preventDefault();
    const target =
      scope === "organization"
        ? { scope, policyId }
        : scope === "tag"
          ? { scope, policyId, tag: normalisedTag }
          : { scope, policyId, serverId };
    const body = { ...target, ...(reach.servers.length > 0 && delivery?.ok && delivery.delivery ? { delivery: delivery.delivery } : {}) };
    void run(sendJson<{ delivery: ChangeOutcome }>("/api/policies/assignments", "POST", body));
  }

  return (
    <Card data-testid="assignment-panel">
      <CardHeader>
        <CardTitle>Assigned to</CardTitle>
        <CardDescription>
          Servers merge the organisation default, then their tags&apos; policies in tag-name order, then their own.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <RolloutStarted outcome={started} />
        {assignments.length === 0 ? (
          <p className="text-sm text-muted-foreground" data-testid="no-assignments">
            Not assigned yet: no server uses this policy.
          </p>
        ) : (
          <ul className="grid gap-1.5">
            {assignments.map((assignment) => (
              <li
                key={assignment.id}
                className="flex items-center justify-between gap-2 rounded-md border px-3 py-1.5 text-sm"
                data-testid="assignment-row"
                data-scope={assignment.scope}
              >
                <AssignmentLabel {...assignment} />
                {canEdit ? (
                  <Button
                    variant="ghost"
                    size="icon"
                    aria-label="Remove assignment"
                    disabled={pending}
                    onClick={() => void run(sendJson<{ delivery: ChangeOutcome }>(`/api/policies/assignments/${assignment.id}`, "DELETE"))}
                  >
                    <X />
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
        {canEdit && !archived ? (
          <form onSubmit={assign} className="grid gap-3 border-t pt-4" data-testid="assign-form">
            <div className="grid gap-1.5">
              <Label htmlFor="assign-scope">Assign to</Label>
              <Select id="assign-scope" value={scope} onChange={(event) => setScope(event.target.value as AssignmentScope)}>
                <option value="organization">Organisation default</option>
                <option value="tag">Servers with a tag</option>
                <option value="server">One server</option>
              </Select>
            </div>
            {scope === "tag" ? (
              <div className="grid gap-1.5">
                <Label htmlFor="assign-tag">Tag</Label>
                <Input
                  id="assign-tag"
                  value={tag}
                  onChange={(event) => setTag(event.target.value)}
                  list="known-tags"
                  placeholder="postgres"
                  required
                />
                <datalist id="known-tags">
                  {knownTags.map((known) => (
                    <option key={known} value={known} />
                  ))}
                </datalist>
              </div>
            ) : null}
            {scope === "server" ? (
              servers.length === 0 ? (
                <p className="text-sm text-muted-foreground">No servers yet: add one first.</p>
              ) : (
                <div className="grid gap-1.5">
                  <Label htmlFor="assign-server">Server</Label>
                  <Select id="assign-server" value={serverId} onChange={(event) => setServerId(event.target.value)}>
                    {servers.map((server) => (
                      <option key={server.id} value={server.id}>
                        {server.hostname}
                      </option>
                    ))}
                  </Select>
                </div>
              )
            ) : null}
            {replaces ? (
              <p className="text-xs text-muted-foreground" data-testid="assign-replaces">
                Replaces “{replaces}” there.
              </p>
            ) : null}
            {reach.servers.length > 0 ? (
              <DeliveryChoice
                key={scope}
                defaultMode={defaultDeliveryMode(reach, rolloutsRequired)}
                reach={reach.description}
                servers={reach.servers}
                onChange={setDelivery}
              />
            ) : null}
            <FormError message={error} />
            <Button
              type="submit"
              disabled={pending || (scope === "server" && servers.length === 0) || (reach.servers.length > 0 && !delivery?.ok)}
              data-testid="assign-submit"
            >
              Assign
            </Button>
          </form>
        ) : null}
        {archived ? <p className="text-sm text-muted-foreground">Archived policies cannot be assigned; restore it first.</p> : null}
      </CardContent>
    </Card>
  );
}
