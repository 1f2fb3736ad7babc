// The account page's sign-in providers (docs/federation.md): the upstream identities linked to this account,
// each with an "Unlink" button, and a "Link NAME" button for each enabled provider not linked yet. Both change
// the ways into the account, so both need a fresh proof (the REAUTH rule, account-session.ts), like a factor
// change: a stolen session cookie must not add the thief's provider, nor remove the owner's. Unlinking never
// removes the last way to sign in (user-rules/unlink-provider.ts). Linking goes to the provider with a pending
// request kept on this browser session; its callback (interaction/federation/account-link-callback.ts) links.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { beginUpstreamSignIn } from '../federation/authorization-request.js';
import { escapeHtml } from '../http/html.js';
import { formField } from '../interaction/csrf.js';
import { rememberAccountLink } from '../interaction/federation/federation-cookie.js';
import { MAX_OFFERED } from '../interaction/federation/offered-providers.js';
import { seeOther } from '../interaction/interaction-context.js';
import { hiddenInput } from '../interaction/pages/layout.js';
import { cspSource } from '../interaction/pages/page-headers.js';
import type { FederatedIdentity } from '../storage/repositories/federated-identities-repository.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import type { User } from '../storage/repositories/users-repository.js';
import type { AccountDeps } from './account-routes.js';
import type { SignedIn } from './account-session.js';

export interface LinkedProviders {
  links: { identity: FederatedIdentity; provider: IdentityProvider | undefined }[];
  /** Enabled providers this account has no link to. */
  linkable: IdentityProvider[];
}

export async function linkedProviders(userId: string, deps: Pick<AccountDeps, 'federation'>): Promise<LinkedProviders> {
  const [identities, enabled] = await Promise.all([deps.federation.identities.forUser(userId), deps.federation.providers.listEnabled(MAX_OFFERED)]);
  const all = await Promise.all(
    identities.map(async (identity) => ({
      identity,
      provider: enabled.find((p) => p.id === identity.providerId) ?? (await deps.federation.providers.find(identity.providerId)),
    })),
  );
  return { links: all, linkable: enabled.filter((p) => !identities.some((i) => i.providerId === p.id)) };
}

/** The page's CSP form-action must name each linkable provider's authorization endpoint: the POST ends in a 303 there. */
export function withLinkTargets<T extends { 'content-security-policy': string }>(headers: T, { linkable }: LinkedProviders): T {
  return withProviderTargets(headers, linkable);
}

/** CSP form-action naming each provider's authorization endpoint (a form whose POST ends in a 303 there). */
export function withProviderTargets<T extends { 'content-security-policy': string }>(headers: T, providers: readonly IdentityProvider[]): T {
  const sources = [...new Set(providers.map((p) => cspSource(p.authorizationEndpoint)).filter((s): s is string => s !== undefined))];
  return sources.length === 0
    ? headers
    : { ...headers, 'content-security-policy': headers['content-security-policy'].replace("form-action 'self'", `form-action 'self' ${sources.join(' ')}`) };
}

const post = (action: string, csrf: string, inner: string) =>
  `<form method="post" action="${action}" class="inline">\n${hiddenInput('csrf', csrf)}\n${inner}\n</form>`;

export function identitiesSection({ links, linkable }: LinkedProviders, csrf: string): string {
  const items = links.map(({ identity, provider }) => {
    const name = escapeHtml(provider?.name ?? 'A provider no longer configured');
    const unlink = provider
      ? post(
          '/account/identities/unlink',
          csrf,
          `${hiddenInput('provider', provider.slug)}\n<button type="submit" class="secondary small" aria-label="Unlink ${name}">Unlink</button>`,
        )
      : '';
    return `<li><strong>${name}</strong>${identity.email ? ` <span class="muted">(${escapeHtml(identity.email)})</span>` : ''}<br>
<span class="muted">Linked ${escapeHtml(identity.createdAt.toISOString().slice(0, 16).replace('T', ' '))} UTC</span><br>${unlink}</li>`;
  });
  const list =
    links.length === 0
      ? '<p class="muted">No sign-in providers are linked to your account.</p>'
      : `<ul class="rows" id="linked-providers">${items.join('\n')}</ul>`;
  const buttons = linkable.map((p) =>
    post('/account/identities/link', csrf, `${hiddenInput('provider', p.slug)}\n<button type="submit" class="secondary">Link ${escapeHtml(p.name)}</button>`),
  );
  return `${list}${buttons.length > 0 ? `\n<div class="actions">${buttons.join('\n')}</div>` : ''}`;
}

type SignedInPost = (
  path: string,
  act: (request: FastifyRequest, reply: FastifyReply, session: SignedIn, user: User) => Promise<FastifyReply>,
  needs?: 'fresh proof' | 'fresh proof to link',
) => unknown;

export function accountIdentityRoutes(signedInPost: SignedInPost, deps: AccountDeps): void {
  signedInPost(
    '/identities/link',
    async (request, reply, session, user) => {
      const { linkable } = await linkedProviders(user.id, deps);
      const provider = linkable.find((p) => p.slug === (formField(request.body, 'provider') ?? ''));
      if (!provider) return seeOther(reply, '/account?error=not_linkable');
      const { url, pending } = await beginUpstreamSignIn(provider, { issuer: deps.issuer, clock: deps.clock });
      await deps.federation.accountLinks.put(session.idHash, pending);
      rememberAccountLink(reply, deps.issuer);
      return seeOther(reply, url);
    },
    'fresh proof to link',
  );

  signedInPost(
    '/identities/unlink',
    async (request, reply, _session, user) => {
      const provider = await deps.federation.providers.find(formField(request.body, 'provider') ?? '');
      if (!provider) return seeOther(reply, '/account');
      const outcome = await deps.unlinkProvider(
        { userId: user.id, providerId: provider.id },
        {
          type: 'account.identity_unlinked',
          actor: { kind: 'user', userId: user.id },
          traceId: request.id,
          details: { face: 'account', provider: provider.slug },
        },
      );
      if (outcome === 'last_way_in') return seeOther(reply, '/account?error=last_way_in');
      return seeOther(reply, outcome === 'unlinked' ? '/account?done=identity_unlinked' : '/account');
    },
    'fresh proof to link',
  );
}
