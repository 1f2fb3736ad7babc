// The way out to an upstream provider: the authorization request (federation/authorization-request.ts)
// with its pending state kept on this interaction (storage/upstream-sign-ins-repository.ts), the
// interaction id in the federation cookie, and a 303 to the upstream. Reached from the login page's
// "Continue with NAME" (POST, CSRF-checked), an e-mail whose domain a provider claims, or login_hint=idp:SLUG.
import type { FastifyReply } from 'fastify';
import { beginUpstreamSignIn } from '../../federation/authorization-request.js';
import type { IdentityProvider } from '../../storage/repositories/identity-providers-repository.js';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import { interactionPath } from '../begin.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';
import { rememberInteraction } from './federation-cookie.js';
import { federationFailure } from './federation-pages.js';
import { offeredProviders } from './offered-providers.js';

export async function sendUpstream(
  reply: FastifyReply,
  interaction: { id: string; request: AuthorizationRequest },
  provider: IdentityProvider,
  hints: { loginHint?: string },
  deps: FlowDeps,
): Promise<FastifyReply> {
  // The relying party's demand for a fresh sign-in is passed on: the upstream must not answer from its session.
  const prompt = interaction.request.prompt.includes('login') ? 'login' : undefined;
  const { url, pending } = await beginUpstreamSignIn(provider, { issuer: deps.issuer, clock: deps.clock }, { ...hints, ...(prompt ? { prompt } : {}) });
  await deps.federation.legs.put(interaction.id, { stage: 'upstream', pending });
  rememberInteraction(reply, deps.issuer, interaction.id);
  return seeOther(reply, url);
}

/** POST /interaction/:id/federation — the "Continue with NAME" buttons. */
export async function submitContinueWith(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  const back = interactionPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: back, label: 'Back to sign-in' });
  const slug = formField(request.body, 'provider') ?? '';
  const provider = (await offeredProviders(client, deps.federation)).find((p) => p.slug === slug);
  if (!provider)
    throw federationFailure('not_offered', 'That provider', back, `provider ${JSON.stringify(slug.slice(0, 64))} is not offered to client ${client.id}`);
  return sendUpstream(reply, { id: request.params.id, request: interaction.request }, provider, {}, deps);
}
