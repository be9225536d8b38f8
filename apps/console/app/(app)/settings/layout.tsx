import type { ReactNode } from "react";
import { SettingsTabs } from "@/components/shell/settings-tabs";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <SettingsTabs />
      {children}
    </>
  );
}
