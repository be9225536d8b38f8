// A real OpenID Connect provider for the SSO journey (npm oidc-provider, its development login
// and consent pages: any login name is accepted and becomes the account's e-mail address). It
// runs inside the test, registered with the one client and redirect URI the organisation's SSO
// settings will use.
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

export interface IdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/** Where the provider listens: one port, named in the stack's SPINDLE_SSO_TRUSTED_ISSUERS. */
export function identityProviderPort(): number {
  return Number(process.env.SPINDLE_E2E_IDP_PORT ?? 3127);
}

export async function startIdentityProvider(redirectUri: string): Promise<IdentityProvider> {
  const issuer = `http://127.0.0.1:${identityProviderPort()}`;
  const clientId = "spindle-e2e";
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    async findAccount(_ctx, id) {
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: id, email_verified: true, name: id.split("@")[0] };
        },
      };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: ["spindle-e2e-cookie-key"] },
    features: { devInteractions: { enabled: true } },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(identityProviderPort(), "127.0.0.1", () => resolve());
  });
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
