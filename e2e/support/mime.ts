// Just enough MIME for the console's messages (nodemailer: multipart/alternative, quoted-printable
// text and HTML): headers, the text part, and the links in it.

export interface ReceivedMessage {
  index: number;
  to: string;
  subject: string;
  kind: string;
  text: string;
  links: string[];
}

function header(head: string, name: string): string {
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "mi").exec(head);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, " ").trim() : "";
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** RFC 2047 encoded words in a header (nodemailer encodes non-ASCII subjects). */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
    encoding.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : decodeQuotedPrintable(text.replace(/_/g, " ")),
  );
}

export function parseMessage(raw: string, to: string, index: number): ReceivedMessage {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split);
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  const plain = parts.find((part) => /^Content-Type: text\/plain/im.test(part)) ?? parts[0]!;
  const partSplit = plain.search(/\r?\n\r?\n/);
  const partHead = plain.slice(0, partSplit);
  const body = plain.slice(partSplit).trim();
  const text = /quoted-printable/i.test(partHead) ? decodeQuotedPrintable(body) : body;
  return {
    index,
    to: to.toLowerCase(),
    subject: decodeWords(header(head, "Subject")),
    kind: header(head, "X-Spindle-Mail"),
    text,
    links: [...new Set(text.match(/https?:\/\/[^\s"<>]+/g) ?? [])],
  };
}
