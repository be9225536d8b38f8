"use client";
import { Printer } from "lucide-react";
import { Button } from "@/components/ui/button";

export function PrintButton() {
  return (
    <Button variant="outline" size="sm" onClick={() => window.print()} data-testid="print-report">
      <Printer aria-hidden /> Print
    </Button>
  );
}
