import { Building2 } from "lucide-react";
import type { ReactNode } from "react";
import { Logo } from "@/components/shell/logo";
import { NavLinks } from "@/components/shell/nav-links";
import { UserMenu } from "@/components/shell/user-menu";
import { pageContext } from "@/modules/auth/lib/page-context";

export default async function AppLayout({ children }: { children: ReactNode }) {
  const context = await pageContext();
  return (
    <div className="flex min-h-screen flex-col">
      <header className="sticky top-0 z-10 border-b bg-card/90 backdrop-blur print:hidden">
        <div className="relative mx-auto flex h-14 w-full max-w-screen-2xl items-center gap-3 px-4 sm:px-6 lg:gap-6 lg:px-8">
          <Logo />
          <span className="hidden items-center gap-1.5 text-sm text-muted-foreground md:flex" data-testid="org-name">
            <Building2 className="size-4" aria-hidden />
            {context.orgName}
          </span>
          <NavLinks />
          <div className="ml-auto">
            <UserMenu name={context.userName} email={context.userEmail} role={context.role} />
          </div>
        </div>
      </header>
      <main className="mx-auto w-full max-w-screen-2xl flex-1 px-4 py-8 sm:px-6 lg:px-8">{children}</main>
    </div>
  );
}
