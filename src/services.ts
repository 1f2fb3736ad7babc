// The composition root (docs/design.md): every repository, issuer, verifier, cache, signal and job of one
// app is built here, once, from configuration, the database and the clock. What each face needs is declared
// by the face (oauth/deps.ts, interaction/deps.ts, account/deps.ts, api/deps.ts, admin/deps.ts); `Services`
// extends those, so no face imports this file. Endpoints and plugins receive a narrow `Pick` of their face's
// interface and never build a service themselves, so there is exactly one of each per app (one DPoP nonce
// key, one client cache, one job queue) and what a module depends on is visible in its signature.
import { enabledIdentityProviders } from './storage/repositories/enabled-identity-providers.js';
import { createCore, type Core, type CoreOptions } from './core.js';
import type { OAuthDeps } from './oauth/deps.js';
import type { InteractionDeps } from './interaction/deps.js';
import type { AccountDeps } from './account/deps.js';
import type { ApiDeps } from './api/deps.js';
import type { AdminDeps } from './admin/deps.js';
import { brandFromConfig } from './http/brand.js';
import { cursorCodec, cursorKey } from './http/pagination/index.js';
import { jobQueue } from './jobs/worker.js';
import { idempotency as idempotencyStore, IDEMPOTENCY_PURGE_INTERVAL_MS } from './http/idempotency/index.js';
import { resourceServerAuth } from './resource-server/auth/index.js';
import { REPORT_JOB, reportJobHandler } from './api/reports/report-job.js';
import { clientAuthDeps } from './oauth/client-auth/index.js';
import { authorizationCodes } from './oauth/codes/index.js';
import { dpopDeps } from './tokens/dpop/proof.js';
import { grantFactories } from './oauth/grant-types/index.js';
import {
  expiredRecordsPurge,
  OAUTH_PURGE_INTERVAL_MS,
  OPEN_CLIENTS_PURGE_INTERVAL_MS,
  pendingLoginsPurge,
  PENDING_LOGIN_PURGE_INTERVAL_MS,
  unusedOpenClientsPurge,
} from './oauth/housekeeping.js';
import { refreshTokens } from './oauth/refresh/index.js';
import { tokenTypeFactories } from './oauth/revocable-token-types.js';
import { accessTokenIssuer } from './oauth/issued-tokens/access-tokens.js';
import { bearerAccessTokenVerifier } from './oauth/issued-tokens/bearer-access-token.js';
import { idTokenIssuer } from './oauth/issued-tokens/id-token.js';
import type { AuthorizationRequest } from './oauth/authorize/authorization-request.js';
import { sendNext } from './interaction/answer.js';
import { beginAuthorization } from './interaction/begin.js';
import type { FlowDeps } from './interaction/flow-deps.js';
import { INTERACTION_TTL_SECONDS } from './interaction/flow-deps.js';
import { rateLimitedLogins } from './interaction/login/rate-limited-logins.js';
import { browserSessions } from './interaction/session/browser-sessions.js';

import { keyEncryption } from './crypto/key-encryption.js';
import { upstreamTokenKeeper } from './federation/upstream-tokens.js';
import { secondFactors } from './interaction/mfa/second-factors.js';
import { passkeyCeremonies } from './interaction/passkeys/passkeys.js';
import { signInMethods } from './interaction/sign-in/sign-in-methods.js';
import { signInPipeline } from './interaction/sign-in/sign-in-pipeline.js';
import { LINK_PROOF_POLICY, secondFactorBudget as accountSecondFactorBudget } from './interaction/sign-in/second-factor-budget.js';
import { accountPasswordChange } from './account/account-password.js';
import { removePasskey, unlinkProvider } from './user-rules/unlink-provider.js';
import { authenticationLookup } from './oauth/issued-tokens/authentication-context.js';
import { createMail, type Mail } from './mail/index.js';
import { outboxWorker, OUTBOX_PURGE_INTERVAL_MS, type OutboxWorker } from './outbox/outbox.js';
import { outboxMetrics, type OutboxMetrics } from './outbox/metrics.js';
import { registerSelfServiceJobs, securityNotices, signupOpen, type SelfService } from './self-service/index.js';
import { FORGOT_PATH, SIGNUP_PATH } from './self-service/index.js';
import { mailMode } from './mail/mail-mode.js';
import { outboundChannels } from './outbound-channels.js';
import { endOwnSession, signOut } from './user-rules/sign-out.js';
import { signInSession } from './user-rules/sign-in-session.js';
import { writeCheckpoint } from './audit/checkpoints.js';
import { oauthMetrics } from './oauth/oauth-metrics.js';
import { KEY_ROTATION_CHECK_MS, rotateKeysWhenDue } from './admin-services/scheduled-key-rotation.js';

/**
 * One object that satisfies what every face declares it needs (their deps.ts): the authorization server, the
 * browser flow and /account, the resource API and the admin API. No face imports this file; each names its
 * own slice, and the compiler checks here that the root provides all of them.
 */
export interface Services extends Core, OAuthDeps, InteractionDeps, AccountDeps, ApiDeps, AdminDeps {
  /** E-mail: its outbox channel and, in development without SMTP_URL, the mailbox /dev/mailbox shows. */
  readonly mail: Mail;
  /** Delivers the outbox's messages (docs/outbox.md); started and stopped with the app by its plugin. */
  readonly outboxWorker: OutboxWorker;
  readonly outboxMetrics: OutboxMetrics;
}

export interface ServicesOptions extends CoreOptions {
  /** Where the job worker reports failed jobs. */
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Tests shorten the outbox lease to see a dead worker's message claimed again. */
  outboxLeaseMs?: number;
}

export function createServices(options: ServicesOptions): Services {
  const core = createCore(options);
  const { config, clock, store } = core;
  const brand = brandFromConfig(config);

  const revocations = store.revocations;
  const grantRecords = store.grants;
  const accessTokens = accessTokenIssuer(core);
  const idTokens = idTokenIssuer(core);
  const bearerTokens = bearerAccessTokenVerifier({ ...core, revocations });
  const codes = authorizationCodes(core);
  const refresh = refreshTokens(core);
  const authentications = authenticationLookup(store.secondFactors);
  const operatorRoles = store.operatorRoles;
  const deviceAuthorizations = store.deviceAuthorizations;
  const delegations = store.delegations;
  const users = store.users;
  const tokenSide = {
    store,
    delegations,
    users,
    audit: core.audit,
    clients: core.clients,
    operatorRoles,
    config,
    clock,
    deviceAuthorizations,
    accessTokens,
    idTokens,
    codes,
    refreshTokens: refresh,
    grantRecords,
    bearerTokens,
    revocations,
    resources: core.resources,
    authentications,
  };
  const dpop = dpopDeps(core);

  // Signing out ends the session, queues its logout tokens and audits it in one transaction (user-rules/sign-out.ts);
  // signing in over a session keeps its sid or ends it the same way (user-rules/sign-in-session.ts).
  const sessions = browserSessions({
    repository: store.browserSessions,
    issuer: config.ISSUER,
    ttlSeconds: config.SESSION_TTL,
    clock,
    ending: signOut(core),
    signingIn: signInSession(core),
  });
  const passkeyStore = store.passkeys;
  const factors = secondFactors({
    repository: store.secondFactors,
    encryption: keyEncryption(core.keyEncryptionKey),
    clock,
    issuerName: brand.name,
    passkeys: passkeyStore,
  });
  const passkeys = passkeyCeremonies({ repository: passkeyStore, issuer: config.ISSUER, rpName: brand.name });
  const loginGuard = rateLimitedLogins(core.rateLimits);
  const secondFactorBudget = accountSecondFactorBudget(store.secondFactorFailures);
  // Codes typed on the federation's link page: a count of their own, so an upstream cannot stop the owner's codes.
  const linkProofBudget = accountSecondFactorBudget(store.linkProofFailures, LINK_PROOF_POLICY);
  const upstream = { clock, outbound: core.outbound, keySets: core.remoteKeySets, env: process.env };
  // The enabled providers in memory, forgotten at every change (the login pages and /account's sign-in form read
  // them on every view: docs/federation.md, "Cost").
  const enabledProviders = enabledIdentityProviders(store.identityProviders, options.database.notifications);
  const federation = {
    providers: { find: (idOrSlug: string) => store.identityProviders.find(idOrSlug), listEnabled: enabledProviders.listEnabled },
    identities: store.federatedIdentities,
    legs: store.upstreamSignIns,
    accountLinks: store.accountLinkRequests,
    upstream,
    tokens: upstreamTokenKeeper({ encryption: keyEncryption(core.keyEncryptionKey), repository: store.federatedIdentityTokens, clock }),
    users,
  };
  // Upstream calls go through the outbound policy; client secrets are read from the environment at use.
  const flow: FlowDeps = {
    issuer: config.ISSUER,
    brand,
    apiAudience: config.API_AUDIENCE,
    resources: core.resources,
    audit: core.audit,
    secondFactors: factors,
    passkeys,
    clock,
    interactionTtlSeconds: Math.min(INTERACTION_TTL_SECONDS, config.SESSION_TTL),
    reauthMaxAge: config.REAUTH_MAX_AGE,
    sessions,
    interactions: store.interactions<AuthorizationRequest>(),
    consents: store.consents,
    clients: core.clients,
    users,
    codes,
    devices: deviceAuthorizations,
    loginGuard,
    // The one sign-in pipeline both faces use (src/interaction/sign-in/).
    methods: signInMethods({
      users,
      loginGuard,
      secondFactors: factors,
      secondFactorBudget,
      linkProofBudget,
      passkeys,
      federation: upstream,
      federatedIdentities: federation.identities,
      upstreamSignIns: federation.legs,
    }),
    signIn: signInPipeline({ sessions, secondFactorBudget, audit: core.audit, upstreamTokens: federation.tokens }),
    federation,
    // Called at request time, when `notices` (below) exists.
    providerLinkedNotice: (userId, provider, acceptLanguage) =>
      notices.send(store, userId, 'factor_added', { params: { factor: 'provider', provider }, acceptLanguage }),
    // "Forgot your password?" and "Create an account" under the login form, when e-mail and SIGNUP allow.
    selfServiceLinks: (interaction) => {
      if (mailMode(config) === 'off') return {};
      const query = interaction ? `?interaction=${encodeURIComponent(interaction)}` : '';
      return { forgotPassword: `${FORGOT_PATH}${query}`, ...(signupOpen({ config }) ? { signup: `${SIGNUP_PATH}${query}` } : {}) };
    },
  };

  // One idempotency store and one cursor codec for both resource-server faces (/v1 and /admin/v1); the
  // cursors' HMAC key is derived from the key-encryption key (docs/idempotency.md, docs/api-conventions.md).
  const idempotency = idempotencyStore(core);
  const cursors = cursorCodec(cursorKey(core.keyEncryptionKey));
  const jobs = jobQueue({ store, clock, log: options.log });
  // Records are kept only while they can still matter (src/oauth/housekeeping.ts, docs/idempotency.md).
  jobs.every('oauth-expired-purge', OAUTH_PURGE_INTERVAL_MS, expiredRecordsPurge(core));
  jobs.every('pending-login-purge', PENDING_LOGIN_PURGE_INTERVAL_MS, pendingLoginsPurge(core));
  jobs.every('open-clients-purge', OPEN_CLIENTS_PURGE_INTERVAL_MS, unusedOpenClientsPurge(core));
  jobs.every('idempotency-purge', IDEMPOTENCY_PURGE_INTERVAL_MS, () => idempotency.purgeExpired());
  jobs.handle(REPORT_JOB, reportJobHandler(clock));
  // Once for the whole deployment, decided under a lock from rows (docs/audit-log.md, docs/key-rotation.md).
  const checkpointMs = config.AUDIT_CHECKPOINT_INTERVAL * 1000;
  jobs.every('audit-checkpoint', Math.min(checkpointMs, 60_000), () =>
    writeCheckpoint({ store, clock, keys: core.keys, audit: core.audit, issuer: config.ISSUER }, { minIntervalMs: checkpointMs }),
  );
  if (config.KEY_ROTATION_INTERVAL > 0) {
    jobs.every('key-rotation', KEY_ROTATION_CHECK_MS, () =>
      rotateKeysWhenDue({ store, clock, keys: core.keys, audit: core.audit }, config.KEY_ROTATION_INTERVAL),
    );
  }

  // Everything that leaves the process goes through the outbox (docs/outbox.md): one worker, one channel each.
  const mail = createMail(config, brand, options.log, () => clock.now());
  const metrics = outboxMetrics(store.outbox, () => clock.now());
  const worker = outboxWorker({
    store,
    clock,
    log: options.log,
    encryption: keyEncryption(core.keyEncryptionKey),
    channels: [...(mail.channel ? [mail.channel] : []), ...outboundChannels(core)],
    metrics,
    retention: { deliveredSeconds: config.OUTBOX_RETENTION, deadSeconds: config.OUTBOX_DEAD_LETTER_RETENTION },
    ...(options.outboxLeaseMs !== undefined ? { leaseMs: options.outboxLeaseMs } : {}),
  });
  core.outbox.onCommitted(() => worker.wake());
  jobs.every('outbox-purge', OUTBOX_PURGE_INTERVAL_MS, () => worker.purge());

  const signals = oauthMetrics();
  core.audit.subscribe(signals.auditSubscriber);

  const notices = securityNotices({ clock, config, outbox: core.outbox });
  const selfServiceDeps = { store, clock, config, brand, audit: core.audit, outbox: core.outbox, jobs, rateLimits: core.rateLimits };
  registerSelfServiceJobs(jobs, selfServiceDeps);
  const selfService: SelfService = {
    ...selfServiceDeps,
    notices,
    async factorsOf(userId) {
      const [status, keys] = await Promise.all([factors.status(userId), passkeys.list(userId)]);
      return { totp: status.totp === 'active', recoveryCodes: status.recoveryCodes, passkeys: keys.map((k) => ({ name: k.name, createdAt: k.createdAt })) };
    },
  };

  return {
    ...core,
    brand,
    users,
    clientRegistrations: store.clients,
    initialAccessTokens: store.initialAccessTokens,
    revocations,
    grantRecords,
    orders: store.orders,
    payments: store.payments,
    reports: store.reports,
    accessTokens,
    idTokens,
    bearerTokens,
    codes,
    refreshTokens: refresh,
    deviceAuthorizations,
    delegations,
    grantTypes: grantFactories.map((create) => create(tokenSide)),
    tokenTypes: tokenTypeFactories.map((create) => create(tokenSide)),
    dpop,
    clientAuth: clientAuthDeps(core),
    sessions,
    flow,
    account: {
      // Ending another of one's sessions on /account also tells its clients (docs/backchannel-logout.md).
      account: { ...store.account, endSession: endOwnSession(core) },
      delegations,
      changePassword: accountPasswordChange({ store, clock, rateLimits: core.rateLimits, outbox: core.outbox }),
      unlinkProvider: (target, event) => unlinkProvider({ store, audit: core.audit }, target, event),
      removePasskey: (target, event) => removePasskey({ store, audit: core.audit }, target, event),
    },
    authentications,
    operatorRoles,
    authorization: {
      begin: (request, client, http) => beginAuthorization(request, client, http, flow),
      // POST /authorize is the client's own form: its answer stays a 303 (interaction/answer.ts).
      respond: (reply, next) => sendNext(reply, next, { issuer: config.ISSUER, brand }, { clientForm: true }),
    },
    resourceAuth: resourceServerAuth({ ...core, revocations: core.revocationFeed, dpop }, { jwksUrl: config.JWKS_URL }),
    idempotency,
    cursors,
    jobs,
    mail,
    outboxWorker: worker,
    outboxMetrics: metrics,
    oauthMetrics: signals,
    selfService,
  };
}
