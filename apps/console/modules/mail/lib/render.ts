// The frame every message shares: a plain-text body (what most mail clients show first and what
// tests read) and the same words as simple HTML with one button. Everything interpolated into
// the HTML is escaped.
import type { MailKind, OutgoingMail } from "../types/mail";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export interface MessageParts {
  kind: MailKind;
  to: string;
  subject: string;
  /** Paragraphs before the button. */
  lines: string[];
  action?: { label: string; url: string };
  /** Paragraphs after the button: expiry, "if this was not you". */
  footer: string[];
}

export function renderMessage(parts: MessageParts): OutgoingMail {
  const text = [...parts.lines, ...(parts.action ? [`${parts.action.label}: ${parts.action.url}`] : []), ...parts.footer, "— Spindle"].join(
    "\n\n",
  );
  const paragraph = (line: string) => `<p style="margin:0 0 16px">${escapeHtml(line)}</p>`;
  const button = parts.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(parts.action.url)}" style="background:#1d4ed8;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(parts.action.label)}</a></p>` +
      `<p style="margin:0 0 16px;color:#555;font-size:13px">Or open this link: ${escapeHtml(parts.action.url)}</p>`
    : "";
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:15px;color:#111;max-width:560px;margin:24px auto;padding:0 16px">` +
    parts.lines.map(paragraph).join("") +
    button +
    `<div style="color:#555;font-size:13px">${parts.footer.map(paragraph).join("")}</div>` +
    `<p style="color:#555;font-size:13px">— Spindle</p></body></html>`;
  return { kind: parts.kind, to: parts.to, subject: parts.subject, text, html };
}
