import { Disc3 } from "lucide-react";
import Link from "next/link";

export function Logo({ href = "/servers" }: { href?: string }) {
  return (
    <Link href={href} className="flex items-center gap-2 font-semibold tracking-tight">
      <span className="flex size-7 items-center justify-center rounded-md bg-primary text-primary-foreground">
        <Disc3 className="size-4" aria-hidden />
      </span>
      Spindle
    </Link>
  );
}
