"use client";
// The browser side of better-auth. Same origin as the console, so no baseURL is needed.
import { organizationClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";
import { accessControl, roles } from "./access";

export const authClient = createAuthClient({
  plugins: [organizationClient({ ac: accessControl, roles })],
});
