"use client";
import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { Button, type ButtonProps } from "./button";

// navigator.clipboard exists only in secure contexts; a console reached over plain http on a LAN
// address falls back to the older selection-based copy.
async function writeClipboard(value: string) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(value);
  const area = document.createElement("textarea");
  area.value = value;
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

/** Copies `value` to the clipboard and confirms for two seconds. */
export function CopyButton({
  value,
  label = "Copy",
  ...props
}: { value: string; label?: string } & Omit<ButtonProps, "onClick" | "value">) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await writeClipboard(value);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <Button variant="outline" size="sm" onClick={copy} aria-label={copied ? "Copied" : label} {...props}>
      {copied ? <Check /> : <Copy />}
      {copied ? "Copied" : label}
    </Button>
  );
}
