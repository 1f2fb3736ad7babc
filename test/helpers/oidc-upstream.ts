// A real upstream identity provider for federation tests: node-oidc-provider (the certified OpenID provider
// library) on a loopback port, whose login step signs in whichever account the test names next (or refuses,
// when told to), plus a GitHub-shaped user API (/gh/user, /gh/user/emails) that accepts its access tokens, as a
// plain OAuth 2.0 upstream. `follow()` walks a browser's redirects from our authorization request to the
// callback URL the upstream sends back (which the test hands to the round trip; it is never fetched).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { freePort } from '../../scripts/pg-cluster.mjs';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';

/** The part of oidc-provider's request context the grant hook reads. */
interface GrantContext {
  oidc: { session?: { accountId?: string }; client?: { clientId: string }; params?: { scope?: unknown }; provider: Provider };
}

export interface UpstreamAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** How the user signed in at the upstream (the id_token's amr), when a test says so. */
  amr?: string[];
  /** The GitHub-shaped API's numeric id and login. */
  githubId?: number;
  login?: string;
}

export interface OidcUpstream {
  issuer: string;
  clientId: string;
  clientSecret: string;
  provider: Provider;
  /** Who the next login step signs in as, or 'deny' to answer access_denied. */
  next: UpstreamAccount | 'deny';
  /** Every token response its token endpoint gave, in order (tests of what is kept of them downstream). */
  issued: { access_token: string; refresh_token?: string; expires_in?: number; scope?: string }[];
  /** Follows the browser's redirects from `authorizationUrl`; answers the Location that leaves the upstream. */
  follow(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startOidcUpstream(options: { redirectUris: string[]; port?: number }): Promise<OidcUpstream> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'gatehouse-downstream';
  const clientSecret = 'upstream-secret-for-tests-only';
  const accounts = new Map<string, UpstreamAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    ],
    // A refresh token with every code (not only for offline_access): what a downstream keeps of it is under test.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['federation-test-cookie-key'] },
    features: { devInteractions: { enabled: false } },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: account.sub, email: account.email, email_verified: account.email_verified, name: account.name }) };
    },
    // Consent is the upstream's business, not what these tests are about: every request is granted.
    async loadExistingGrant(ctx: GrantContext) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope(String(ctx.oidc.params?.scope ?? 'openid'));
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  });
  const handler = provider.callback();
  provider.on('grant.success', (ctx: { body?: unknown }) => {
    if (ctx.body && typeof ctx.body === 'object' && 'access_token' in ctx.body) upstream.issued.push(ctx.body as OidcUpstream['issued'][number]);
  });
  const upstream: OidcUpstream = {
    issuer,
    clientId,
    clientSecret,
    provider,
    next: { sub: 'upstream-user' },
    issued: [],
    follow: (url) => follow(url, issuer),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const next = upstream.next;
    if (next === 'deny') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user said no' }, { mergeWithLastSubmission: false });
      return;
    }
    accounts.set(next.sub, next);
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: next.sub, ...(next.amr ? { amr: next.amr } : {}) } },
      { mergeWithLastSubmission: false },
    );
  }

  async function githubApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? await provider.AccessToken.find(token) : undefined;
    const account = found ? accounts.get(found.accountId) : undefined;
    res.setHeader('content-type', 'application/json');
    if (!account) {
      res.statusCode = 401;
      res.end(JSON.stringify({ message: 'Bad credentials' }));
      return;
    }
    if (req.url === '/gh/user')
      res.end(JSON.stringify({ id: account.githubId ?? 1, login: account.login ?? account.sub, name: account.name ?? null, email: null }));
    else
      res.end(
        JSON.stringify([
          { email: 'secondary@example.net', primary: false, verified: true },
          ...(account.email ? [{ email: account.email, primary: true, verified: account.email_verified === true }] : []),
        ]),
      );
  }

  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    const route = path.startsWith('/interaction/') ? interaction(req, res) : path.startsWith('/gh/') ? githubApi(req, res) : Promise.resolve(handler(req, res));
    route.catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  void (server.address() as AddressInfo);
  return upstream;
}

/** A browser's walk through the upstream's redirects, with its cookies, until a Location leaves the upstream. */
async function follow(start: string, issuer: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the upstream answered ${response.status} without a redirect at ${url.pathname}: ${(await response.text()).slice(0, 300)}`);
    url = new URL(location, url);
    if (url.origin !== new URL(issuer).origin) return url;
  }
  throw new Error('too many redirects at the upstream');
}

/**
 * The settings every test registration of this upstream shares: our client at the upstream (its secret read
 * from the environment variable `clientSecretEnv`), the usual scopes, no domain or tenant limits, no claim
 * mapping, no provisioning, and linking by verified e-mail. Tests spread their endpoints and overrides around it.
 */
export function upstreamProviderSettings(upstream: OidcUpstream, clientSecretEnv: string) {
  return {
    clientId: upstream.clientId,
    clientSecretEnv,
    scopes: ['openid', 'email', 'profile'],
    domains: [],
    tenants: [],
    claims: {},
    provision: false,
    link: 'verified-email',
  } satisfies Pick<IdentityProvider, 'clientId' | 'clientSecretEnv' | 'scopes' | 'domains' | 'tenants' | 'claims' | 'provision' | 'link'>;
}
