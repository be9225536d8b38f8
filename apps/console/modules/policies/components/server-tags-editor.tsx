"use client";
import { Pencil, Tag } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { sendJson } from "./send-json";

/** A server's tags: which tag policies apply to it. Editors change them as a comma-separated list. */
export function ServerTagsEditor({
  serverId,
  tags,
  canEdit,
  onSaved,
}: {
  serverId: string;
  tags: string[];
  canEdit: boolean;
  onSaved: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(tags.join(", "));
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function save(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    const next = text
      .split(/[,\s]+/)
      .map((tag) => tag.trim())
      .filter(Boolean);
    const result = await sendJson<{ tags: string[] }>(`/api/policies/servers/${serverId}/tags`, "PUT", { tags: next });
    setPending(false);
    if (!result.ok)
      return setError(result.problems.length > 0 ? `${result.message} ${result.problems.map((p) => p.message).join(" ")}` : result.message);
    setError(null);
    setEditing(false);
    setText(result.data.tags.join(", "));
    onSaved();
  }

  if (editing) {
    return (
      <form onSubmit={save} className="grid gap-2" data-testid="tags-form">
        <div className="flex flex-col gap-2 sm:flex-row">
          <Input aria-label="Tags" value={text} onChange={(event) => setText(event.target.value)} placeholder="postgres, prod" autoFocus />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={pending} data-testid="save-tags">
              Save tags
            </Button>
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                setEditing(false);
                setText(tags.join(", "));
                setError(null);
              }}
            >
              Cancel
            </Button>
          </div>
        </div>
        <p className="text-xs text-muted-foreground">Comma-separated; lowercase letters, digits, . _ : -</p>
        <FormError message={error} />
      </form>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-1.5" data-testid="server-tags">
      <Tag className="size-4 text-muted-foreground" aria-hidden />
      {tags.length === 0 ? (
        <span className="text-sm text-muted-foreground">No tags</span>
      ) : (
        tags.map((tag) => (
          <Badge key={tag} variant="outline" data-testid="server-tag">
            {tag}
          </Badge>
        ))
      )}
      {canEdit ? (
        <Button
          variant="ghost"
          size="sm"
          onClick={() => {
            setText(tags.join(", "));
            setEditing(true);
          }}
          data-testid="edit-tags"
        >
          <Pencil /> Edit tags
        </Button>
      ) : null}
    </div>
  );
}
