import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { OrgContext } from "../types/context";
import { resolveOrgContext } from "./org-context";

/** For server components under (app): signed-out users go to sign-in, org-less users to onboarding. */
export async function pageContext(): Promise<OrgContext> {
  const result = await resolveOrgContext(await headers());
  if (result.kind === "signed-out") redirect("/sign-in");
  if (result.kind === "no-organisation") redirect("/onboarding");
  return result.context;
}
