// The confirmation page of `prove-then-link` (federation/linking.ts): the upstream asserted a verified
// e-mail that exactly one local account has, verified too. Nothing is linked until the user proves that
// account here with its password (through the sign-in pipeline, charged to its login budget like any
// password); only then is (provider, sub) linked — `account.identity_linked` — and the account's own
// second factor, if it has one, still follows. The identity waiting for proof lives on this browser's
// interaction (storage/upstream-sign-ins-repository.ts) for the upstream leg's lifetime.
import type { FastifyReply } from 'fastify';
import { PENDING_UPSTREAM_TTL_MS } from '../../federation/authorization-request.js';
import { hasPassword } from '../../user-rules/sign-in-ways.js';
import type { IdentityAwaitingProof } from '../../storage/upstream-sign-ins-repository.js';
import { interactionPath } from '../begin.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { loadInteraction, seeOther, sendPage, type InteractionRequest } from '../interaction-context.js';
import type { SignInContext } from '../sign-in/sign-in-pipeline.js';
import { pageHeadersAllowingRedirectTo } from '../pages/page-headers.js';
import { continueAfterUpstream } from './after-upstream.js';
import { afterFirstFactor } from '../mfa/second-factors.js';
import { AMR_FEDERATED } from '../sign-in/federation-method.js';
import { federationFailure, renderLinkConfirmationPage } from './federation-pages.js';

export const linkConfirmationPath = (interactionId: string): string => `${interactionPath(interactionId)}/link`;

async function awaitingProof(request: InteractionRequest, deps: FlowDeps) {
  const loaded = await loadInteraction(request, deps);
  const leg = loaded.session ? await deps.federation.legs.peek(request.params.id) : undefined;
  const identity = leg?.stage === 'link' && deps.clock.now() - leg.identity.createdAt <= PENDING_UPSTREAM_TTL_MS ? leg.identity : undefined;
  const provider = identity && (await deps.federation.providers.find(identity.providerId));
  const user = identity && (await deps.federation.users.findById(identity.userId));
  return { ...loaded, identity, provider: provider?.enabled ? provider : undefined, user };
}

export async function showLinkConfirmation(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const { interaction, session, identity, provider, user } = await awaitingProof(request, deps);
  const back = interactionPath(request.params.id);
  if (!session || !identity || !provider || !user) return seeOther(reply, back);
  const failed = (request.query as Record<string, unknown>).failed === '1';
  const page = renderLinkConfirmationPage({
    brand: deps.brand,
    action: linkConfirmationPath(request.params.id),
    csrfToken: session.csrfToken,
    providerName: provider.name,
    email: identity.email ?? '',
    failed,
    hasPassword: hasPassword(user),
    hasTotp: (await deps.secondFactors.status(user.id)).totp === 'active',
    cancelHref: back,
  });
  // Its POST may end in a 303 to the client (CSP form-action applies to it).
  return sendPage(reply, page, 200, pageHeadersAllowingRedirectTo(interaction.request.redirectUri));
}

const sameIdentity = (a: IdentityAwaitingProof, b: IdentityAwaitingProof) => a.providerId === b.providerId && a.subject === b.subject && a.userId === b.userId;

export async function submitLinkConfirmation(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session, identity, provider, user } = await awaitingProof(request, deps);
  const back = interactionPath(request.params.id);
  const here = linkConfirmationPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: here, label: 'Back' });
  if (!identity || !provider || !user) return seeOther(reply, back);

  // The password, or a code of the account's authenticator app (its own second factor: with the upstream's
  // proof, two factors — no further second factor is asked). Each through its method and budgets.
  const password = formField(request.body, 'password') ?? '';
  const otp = formField(request.body, 'otp') ?? '';
  const byCode = password === '' && otp.trim() !== '';
  const proof: SignInContext = { request, face: 'interaction', method: byCode ? 'totp' : 'password', clientId: client.id, userId: user.id, answer: 'form' };
  const outcome = await deps.signIn.attempt(proof, () =>
    byCode ? deps.methods.totp({ userId: user.id, code: otp, ip: request.ip }) : deps.methods.password({ username: user.username, password, ip: request.ip }),
  );
  if (!outcome.ok || outcome.userId !== user.id) return seeOther(reply, `${here}?failed=1`);

  // Single use: of two parallel correct proofs only one links and signs in.
  const taken = await deps.federation.legs.take(request.params.id);
  if (taken?.stage !== 'link' || !sameIdentity(taken.identity, identity)) return seeOther(reply, back);
  const linked = await deps.federation.identities.link({ providerId: provider.id, subject: identity.subject, userId: user.id, email: identity.email }, new Date(deps.clock.now()));
  if (linked !== 'linked') throw federationFailure('link_conflict', provider.name, back, `link of ${provider.slug} to user ${user.id}: ${linked}`);
  await deps.audit.emit({
    type: 'account.identity_linked',
    actor: { kind: 'user', userId: user.id, clientId: client.id },
    subject: user.id,
    clientId: client.id,
    traceId: request.id,
    details: { provider: provider.slug, how: byCode ? 'proved_totp' : 'proved_password' },
  });
  await deps.providerLinkedNotice?.(user.id, provider.name, request.headers['accept-language']);
  const context: SignInContext = { request, face: 'interaction', method: 'federation', clientId: client.id, answer: 'form' };
  const loaded = { interaction, client, session, id: request.params.id };
  if (byCode) return continueAfterUpstream(context, reply, loaded, { userId: user.id, amr: afterFirstFactor(outcome.amr, AMR_FEDERATED) }, deps, { secondFactorDone: true });
  return continueAfterUpstream(context, reply, loaded, { userId: user.id, amr: ['fed', 'pwd'] }, deps);
}
