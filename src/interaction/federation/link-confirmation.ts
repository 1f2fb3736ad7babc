// The confirmation page of `prove-then-link` (federation/linking.ts): the upstream asserted a verified
// e-mail that exactly one local account has, verified too. Nothing is linked until the user proves that
// account here — with its password, a code of its authenticator app, or one of its passkeys, each through
// the sign-in pipeline's method and budgets; only then is (provider, sub) linked — `account.identity_linked`
// — and the account's own second factor, if it has one, still follows a password. The identity waiting for
// proof lives on this browser's interaction (storage/upstream-sign-ins-repository.ts) for the upstream
// leg's lifetime.
//
// Who reaches this page: whoever controls an upstream provider that asserts the address as verified — not
// necessarily the owner, and without the account's password. So its guesses must cost the owner nothing
// (docs/federation.md, "Proving the account"): a link request allows LINK_PROOF_ATTEMPTS proofs in all and
// then ends, and an authenticator code typed here is charged to the account's own link-proof count, never to
// the second-factor count its sign-ins use (docs/rate-limits.md).
import type { SealedTokensOfSignIn } from '../../storage/repositories/second-factors-repository.js';
import type { FastifyReply } from 'fastify';
import { pageSecurityHeaders } from '../../http/html.js';
import { PENDING_UPSTREAM_TTL_MS } from '../../federation/authorization-request.js';
import { PageError, ProblemError } from '../../http/errors.js';
import { hasPassword } from '../../user-rules/sign-in-ways.js';
import type { IdentityAwaitingProof } from '../../storage/repositories/upstream-sign-ins-repository.js';
import { interactionPath } from '../begin.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { loadInteraction, seeOther, sendPage, type InteractionRequest } from '../interaction-context.js';
import type { SignInContext } from '../sign-in/sign-in-pipeline.js';
import type { MethodOutcome, SignInMethodName } from '../sign-in/sign-in-method.js';
import { passkeyAction, withPasskeyScripts } from '../passkeys/passkey-fragments.js';
import { passkeyFlowGone, passkeyRefused, sendJson, type PasskeyBody } from '../passkeys/passkey-json.js';
import { continueAfterUpstream } from './after-upstream.js';
import { afterFirstFactor } from '../mfa/second-factors.js';
import { AMR_FEDERATED } from '../sign-in/federation-method.js';
import { federationFailure, renderLinkConfirmationPage } from './federation-pages.js';

export const linkConfirmationPath = (interactionId: string): string => `${interactionPath(interactionId)}/link`;
/** The passkey ceremony of the confirmation page: POST …/link/passkey/options and …/link/passkey/verify. */
export const linkPasskeyPath = (interactionId: string): string => `${linkConfirmationPath(interactionId)}/passkey`;

/** Proofs a link request allows in all (any kind); the next failure ends it, and the upstream sign-in starts again. */
export const LINK_PROOF_ATTEMPTS = 3;

/** The challenges of the confirmation page's passkey: bound to this interaction, apart from its second factor's. */
const boundToLink = (interactionIdHash: string) => `link:${interactionIdHash}`;

async function awaitingProof(request: InteractionRequest, deps: FlowDeps) {
  const loaded = await loadInteraction(request, deps);
  const leg = loaded.session ? await deps.federation.legs.peek(request.params.id) : undefined;
  const identity = leg?.stage === 'link' && deps.clock.now() - leg.identity.createdAt <= PENDING_UPSTREAM_TTL_MS ? leg.identity : undefined;
  const provider = identity && (await deps.federation.providers.find(identity.providerId));
  const user = identity && (await deps.federation.users.findById(identity.userId));
  return { ...loaded, identity, provider: provider?.enabled ? provider : undefined, user };
}

export async function showLinkConfirmation(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const { session, identity, provider, user } = await awaitingProof(request, deps);
  const back = interactionPath(request.params.id);
  if (!session || !identity || !provider || !user) return seeOther(reply, back);
  const failed = (request.query as Record<string, unknown>).failed;
  const status = await deps.secondFactors.status(user.id);
  const page = renderLinkConfirmationPage({
    brand: deps.brand,
    action: linkConfirmationPath(request.params.id),
    csrfToken: session.csrfToken,
    providerName: provider.name,
    email: identity.email ?? '',
    failed: failed === 'codes' ? 'codes' : failed === '1',
    hasPassword: hasPassword(user),
    hasTotp: status.totp === 'active',
    passkey: status.passkeys > 0 ? passkeyAction(linkPasskeyPath(request.params.id), session.csrfToken) : undefined,
    cancelHref: back,
  });
  // Its POST ends on our own origin (a page, the second factor, or this page again), never at the client:
  // form-action stays 'self'. The passkey runs our own script.
  const headers = pageSecurityHeaders;
  return sendPage(reply, page, 200, status.passkeys > 0 ? withPasskeyScripts(headers) : headers);
}

const sameIdentity = (a: IdentityAwaitingProof, b: IdentityAwaitingProof) => a.providerId === b.providerId && a.subject === b.subject && a.userId === b.userId;

type Loaded = Awaited<ReturnType<typeof awaitingProof>>;
type Ready = Loaded & {
  session: NonNullable<Loaded['session']>;
  identity: IdentityAwaitingProof;
  provider: NonNullable<Loaded['provider']>;
  user: NonNullable<Loaded['user']>;
};

interface Proof {
  method: Extract<SignInMethodName, 'password' | 'totp' | 'passkey'>;
  answer: SignInContext['answer'];
  run: () => Promise<MethodOutcome>;
}

const HOW: Record<Proof['method'], string> = { password: 'proved_password', totp: 'proved_totp', passkey: 'proved_passkey' };

/** The link request is over (out of attempts): the page for a form, Problem Details for the passkey's JSON. */
function linkStopped(answer: Proof['answer'], back: string, userId: string): Error {
  const detail = 'Too many attempts to prove the account. Nothing was linked; start the sign-in again.';
  const log = { reason: 'link_proof_attempts_used', user_id: userId };
  return answer === 'json'
    ? new ProblemError('rate-limited', detail, { log })
    : new PageError('Too many attempts', detail, 429, {}, { back: { href: back, label: 'Back to sign-in' }, log });
}

/**
 * One proof of the account, then the link. The attempt is counted on the link request before it is looked
 * at (parallel proofs cannot exceed the count); a failure that uses the last attempt ends the request.
 * 'failed' when the proof was refused and attempts remain; the linked user and the amr otherwise.
 */
async function proveThenLink(
  request: InteractionRequest,
  deps: FlowDeps,
  ready: Ready,
  proof: Proof,
): Promise<'failed' | { amr: string[]; secondFactorDone: boolean; upstreamTokens: SealedTokensOfSignIn | undefined }> {
  const { client, identity, provider, user } = ready;
  const back = interactionPath(request.params.id);
  const used = await deps.federation.legs.chargeProof(request.params.id, LINK_PROOF_ATTEMPTS);
  if (used === undefined) throw linkStopped(proof.answer, back, user.id);
  const context: SignInContext = { request, face: 'interaction', method: proof.method, clientId: client.id, userId: user.id, answer: proof.answer };
  const outcome = await deps.signIn.attempt(context, proof.run);
  if (!outcome.ok || outcome.userId !== user.id) {
    if (used < LINK_PROOF_ATTEMPTS) return 'failed';
    await deps.federation.legs.take(request.params.id);
    throw linkStopped(proof.answer, back, user.id);
  }

  // Single use: of two parallel correct proofs only one links and signs in.
  const taken = await deps.federation.legs.take(request.params.id);
  if (taken?.stage !== 'link' || !sameIdentity(taken.identity, identity)) {
    if (proof.answer === 'json') throw passkeyFlowGone('link_request_used');
    return 'failed';
  }
  const linked = await deps.federation.identities.link(
    { providerId: provider.id, subject: identity.subject, userId: user.id, email: identity.email },
    new Date(deps.clock.now()),
  );
  if (linked !== 'linked') throw federationFailure('link_conflict', provider.name, back, `link of ${provider.slug} to user ${user.id}: ${linked}`);
  await deps.audit.emit({
    type: 'account.identity_linked',
    actor: { kind: 'user', userId: user.id, clientId: client.id },
    subject: user.id,
    clientId: client.id,
    traceId: request.id,
    details: { provider: provider.slug, how: HOW[proof.method] },
  });
  await deps.providerLinkedNotice?.(user.id, provider.name, request.headers['accept-language']);
  // --store-tokens: the sign-in's tokens, sealed at the callback, go with the proof and are written when the
  // sign-in completes (sign-in-pipeline.ts) — after the account's own second factor when one is asked.
  const upstreamTokens = taken.identity.tokens;
  // A password is the first factor again (the account's own second factor follows); a code or a passkey is
  // something held: with the upstream's proof, two factors, and no further second factor is asked.
  if (proof.method === 'password') return { amr: [...AMR_FEDERATED, 'pwd'], secondFactorDone: false, upstreamTokens };
  return { amr: afterFirstFactor(outcome.amr, AMR_FEDERATED), secondFactorDone: true, upstreamTokens };
}

const isRateLimited = (error: unknown) => (error as { status?: number } | null)?.status === 429;

export async function submitLinkConfirmation(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const loaded = await awaitingProof(request, deps);
  const { interaction, client, session, identity, provider, user } = loaded;
  const back = interactionPath(request.params.id);
  const here = linkConfirmationPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: here, label: 'Back' });
  if (!identity || !provider || !user) return seeOther(reply, back);

  // The password, or a code of the account's authenticator app (charged to the link-proof count).
  const password = formField(request.body, 'password') ?? '';
  const otp = formField(request.body, 'otp') ?? '';
  const byCode = password === '' && otp.trim() !== '';
  const proof: Proof = {
    method: byCode ? 'totp' : 'password',
    answer: 'form',
    run: () =>
      byCode
        ? deps.methods.totpToLink({ userId: user.id, code: otp, ip: request.ip })
        : deps.methods.password({ username: user.username, password, ip: request.ip }),
  };
  let linked: Awaited<ReturnType<typeof proveThenLink>>;
  try {
    linked = await proveThenLink(request, deps, { ...loaded, session, identity, provider, user }, proof);
  } catch (error) {
    // The account's link-proof count is waiting or stopped: the other proofs still work.
    if (byCode && isRateLimited(error) && error instanceof ProblemError) return seeOther(reply, `${here}?failed=codes`);
    throw error;
  }
  if (linked === 'failed') return seeOther(reply, `${here}?failed=1`);
  const context: SignInContext = { request, face: 'interaction', method: 'federation', clientId: client.id, answer: 'form' };
  // Signed in, the answer is our hand-over page, never a redirect on to the client: a relying party whose
  // redirect_uri redirects on to another origin (a broker) would meet this page's form-action (after-upstream.ts).
  return continueAfterUpstream(
    context,
    reply,
    { interaction, client, session, id: request.params.id },
    { userId: user.id, amr: linked.amr, upstreamTokens: linked.upstreamTokens },
    deps,
    { secondFactorDone: linked.secondFactorDone },
  );
}

type PasskeyRequest = InteractionRequest & { body: PasskeyBody };

/** The passkey ceremony's state: only while the interaction awaits proof of an account that has passkeys. */
async function linkCeremony(request: PasskeyRequest, deps: FlowDeps): Promise<Ready> {
  checkSameOrigin(request, deps.issuer);
  const loaded = await awaitingProof(request, deps);
  const { session, identity, provider, user } = loaded;
  if (!session) throw passkeyFlowGone('interaction_session_expired');
  checkCsrfToken(request.body.csrf, session);
  if (!identity || !provider || !user) throw passkeyFlowGone('no_link_awaiting_proof');
  return { ...loaded, session, identity, provider, user };
}

export async function linkPasskeyOptions(request: PasskeyRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const { interaction, client, user } = await linkCeremony(request, deps);
  if ((await deps.passkeys.count(user.id)) === 0) throw passkeyRefused('no_passkeys', { client_id: client.id, user_id: user.id });
  // Only this account's passkeys are offered and accepted.
  return sendJson(reply, await deps.passkeys.authenticationOptions(boundToLink(interaction.idHash), user.id));
}

export async function linkPasskeyVerify(request: PasskeyRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const ready = await linkCeremony(request, deps);
  const { interaction, client, session, user } = ready;
  const proof: Proof = {
    method: 'passkey',
    answer: 'json',
    run: () => deps.methods.passkey({ boundTo: boundToLink(interaction.idHash), response: request.body.response, pendingUser: user.id, ip: request.ip }),
  };
  const linked = await proveThenLink(request, deps, ready, proof);
  if (linked === 'failed') throw passkeyRefused('link_proof_refused', { client_id: client.id, user_id: user.id });
  // The passkey is the account's second factor: signed in now, and the interaction page goes on to consent
  // or back to the client (steps/show-interaction.ts), as after a passkey on the second-factor page.
  const context: SignInContext = { request, face: 'interaction', method: 'federation', clientId: client.id, answer: 'json' };
  const fresh = await deps.signIn.completeSignIn(context, reply, session, { userId: user.id, amr: linked.amr, upstreamTokens: linked.upstreamTokens });
  await deps.interactions.loggedIn(request.params.id, fresh.idHash);
  return sendJson(reply, { redirect: interactionPath(request.params.id) });
}
