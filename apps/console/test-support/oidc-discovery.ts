// A loopback stand-in for an OpenID provider's discovery document and keys: enough for single
// sign-on settings to be saved (the SSO journey in e2e runs a real provider end to end).
import { createServer, type Server } from "node:http";

export async function discoveryServer(): Promise<{ issuer: string; close(): Promise<void> }> {
  let issuer = "";
  const server: Server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    if (request.url === "/.well-known/openid-configuration") {
      response.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          userinfo_endpoint: `${issuer}/me`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
        }),
      );
    } else response.end(JSON.stringify({ keys: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
