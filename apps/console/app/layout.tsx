import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Spindle", template: "%s · Spindle" },
  description: "Storage I/O observability and tuning",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Reading the request makes every page render per request, so Next.js can put this response's
  // CSP nonce (set by proxy.ts) on its scripts; a prerendered page would carry none and be blocked.
  await headers();
  return (
    <html lang="en">
      <body className="min-h-screen">{children}</body>
    </html>
  );
}
