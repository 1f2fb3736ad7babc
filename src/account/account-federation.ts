// /account's own sign-in through an upstream provider (docs/federation.md): its sign-in form offers
// "Continue with NAME" for every enabled provider, and the choice goes to that provider with a pending request
// kept on this browser's session, found at the provider's callback only with that session's cookie and taken
// once (interaction/federation/account-sign-in-callback.ts signs in through the one pipeline and lands here).
// The browser session is created by the choice itself — a POST carrying the pre-session's CSRF token, like a
// correct password — never by showing the form (pre-session.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { beginUpstreamSignIn } from '../federation/authorization-request.js';
import { logRefusal } from '../http/refusal-log.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../interaction/csrf.js';
import { rememberAccountSignIn } from '../interaction/federation/federation-cookie.js';
import { continueWithSection } from '../interaction/federation/federation-pages.js';
import { MAX_OFFERED } from '../interaction/federation/offered-providers.js';
import { seeOther } from '../interaction/interaction-context.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import { withProviderTargets } from './account-identities.js';
import type { AccountDeps } from './account-routes.js';
import { currentPreSession } from './pre-session.js';

const ACCOUNT_FEDERATION_PATH = '/account/federation';

/** What the sign-in form adds: the buttons, and its headers with the providers in CSP form-action. */
export async function accountSignInFederation(deps: Pick<AccountDeps, 'federation'>, csrfToken: string) {
  const providers: IdentityProvider[] = await deps.federation.providers.listEnabled(MAX_OFFERED);
  return {
    federation: { section: continueWithSection({ action: ACCOUNT_FEDERATION_PATH, csrfToken, providers }), passwordOptional: false },
    headers: <T extends { 'content-security-policy': string }>(headers: T): T => withProviderTargets(headers, providers),
  };
}

export function accountFederationRoutes(app: FastifyInstance, deps: AccountDeps, options: object): void {
  app.post(ACCOUNT_FEDERATION_PATH, options, async (request: FastifyRequest, reply: FastifyReply) => {
    checkSameOrigin(request, deps.issuer);
    const session = await deps.sessions.current(request);
    const form = session ?? currentPreSession(request, deps.issuer);
    if (!form) return seeOther(reply, '/account');
    checkCsrfToken(formField(request.body, 'csrf'), form, { href: '/account', label: 'Back to your account' });
    const slug = formField(request.body, 'provider') ?? '';
    const provider = (await deps.federation.providers.listEnabled(MAX_OFFERED)).find((p) => p.slug === slug);
    if (!provider) {
      logRefusal(request, { reason: 'federation_not_offered', detail: `provider ${JSON.stringify(slug.slice(0, 64))} is not enabled` }, 303);
      return seeOther(reply, '/account?failed=1');
    }
    const { url, pending } = await beginUpstreamSignIn(provider, { issuer: deps.issuer, clock: deps.clock });
    // The first server-side state of this browser: only once it chose a provider.
    const waiting = session ?? (await deps.sessions.ensure(request, reply));
    await deps.federation.accountLinks.put(waiting.idHash, pending);
    rememberAccountSignIn(reply, deps.issuer);
    return seeOther(reply, url);
  });
}
