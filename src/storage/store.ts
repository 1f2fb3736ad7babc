// The unit of work (docs/design.md, "Unit of work"): everything above storage reaches the database through a
// Store — the repositories, built for one connection or one transaction, and one way to open a transaction.
// `createStore(db, clock)` is called once by the composition root; `store.transaction(work)` hands `work` a
// Store over that transaction. Repositories are built on first use and kept for the life of the store, so a
// transaction's store costs one object until a repository is asked for, and a long-lived store (the hot
// paths of /token take theirs at start) builds each repository once.
//
// Work that must happen only once a transaction has committed — the audit log's JSON line, which would
// otherwise claim a change the rollback undid (docs/audit-log.md), the outbox worker's wake-up — is
// registered with `afterCommit`. Kysely has no commit hook: the store runs the callbacks registered on its
// transaction after the commit and drops them on a rollback.
import type { Clock } from '../clock.js';
import { accountLinkRequestsRepository, type AccountLinkRequestsRepository } from './repositories/account-link-requests-repository.js';
import { accountRepository, type AccountRepository } from './repositories/account-repository.js';
import { accountTokensRepository, type AccountTokensRepository } from './repositories/account-tokens-repository.js';
import { applyLockRepository } from './repositories/apply-lock-repository.js';
import { auditChainRepository, type AuditChainRepository } from './repositories/audit-chain-repository.js';
import { auditEventsRepository, type AuditEventsRepository } from './repositories/audit-events-repository.js';
import { authorizationCodesRepository, type AuthorizationCodesRepository } from './repositories/authorization-codes-repository.js';
import { logoutTargets, type EndingSessions, type LogoutTarget } from './repositories/backchannel-logout-repository.js';
import { browserSessionsRepository, type BrowserSessionsRepository } from './repositories/browser-sessions-repository.js';
import { clientAdminRepository, type ClientAdminRepository } from './repositories/client-admin-repository.js';
import { clientAssertionsRepository, type ClientAssertionsRepository } from './repositories/client-assertions-repository.js';
import { clientsRepository, type ClientsRepository } from './repositories/clients-repository.js';
import { consentsRepository, type ConsentsRepository } from './repositories/consents-repository.js';
import type { Db } from './driver/database.js';
import { delegationsRepository, type DelegationsRepository } from './repositories/delegations-repository.js';
import { deviceAuthorizationsRepository, type DeviceAuthorizationsRepository } from './repositories/device-authorizations-repository.js';
import { dpopProofsRepository, type DpopProofsRepository } from './repositories/dpop-proofs-repository.js';
import { federatedIdentityTokensRepository, type FederatedIdentityTokensRepository } from './repositories/federated-identity-tokens-repository.js';
import { federatedIdentitiesRepository, type FederatedIdentitiesRepository } from './repositories/federated-identities-repository.js';
import { grantsRepository, type GrantsRepository } from './repositories/grants-repository.js';
import { idempotencyKeysRepository, type IdempotencyKeysRepository } from './repositories/idempotency-keys-repository.js';
import { identityProvidersRepository, type IdentityProvidersRepository } from './repositories/identity-providers-repository.js';
import { initialAccessTokensRepository, type InitialAccessTokensRepository } from './repositories/initial-access-tokens-repository.js';
import { interactionsRepository, type InteractionsRepository } from './repositories/interactions-repository.js';
import { jobsRepository, type JobsRepository } from './repositories/jobs-repository.js';
import { operatorRolesRepository, type OperatorRolesRepository } from './repositories/operator-roles-repository.js';
import { ordersRepository, type OrdersRepository } from './repositories/orders-repository.js';
import { outboxRepository, type OutboxRepository } from './repositories/outbox-repository.js';
import { passkeysRepository, type PasskeysRepository } from './repositories/passkeys-repository.js';
import { paymentsRepository, type PaymentsRepository } from './repositories/payments-repository.js';
import { refreshTokensRepository, type RefreshTokensRepository } from './repositories/refresh-tokens-repository.js';
import { reportsRepository, type ReportsRepository } from './repositories/reports-repository.js';
import { resourceServersRepository, type ResourceServersRepository } from './repositories/resource-servers-repository.js';
import { revocationsRepository, type RevocationsRepository } from './repositories/revocations-repository.js';
import { secondFactorFailuresRepository, type SecondFactorFailuresRepository } from './repositories/second-factor-failures-repository.js';
import { secondFactorsRepository, type SecondFactorsRepository } from './repositories/second-factors-repository.js';
import { selfServiceRepository, type SelfServiceRepository } from './repositories/self-service-repository.js';
import { signInWaysRepository, type SignInWaysRepository } from './repositories/sign-in-ways-repository.js';
import { signingKeysRepository } from './repositories/signing-keys-repository.js';
import { lockTask } from './repositories/task-locks.js';
import { upstreamSignInsRepository, type UpstreamSignInsRepository } from './repositories/upstream-sign-ins-repository.js';
import { userAccessAdminRepository, type UserAccessAdminRepository } from './repositories/user-access-admin-repository.js';
import { userAdminRepository, type UserAdminRepository } from './repositories/user-admin-repository.js';
import { userAttributesRepository, type UserAttributesRepository } from './repositories/user-attributes-repository.js';
import { usersRepository, type UsersRepository } from './repositories/users-repository.js';
import { webhookEndpointsRepository, type WebhookEndpointsRepository } from './repositories/webhook-endpoints-repository.js';
import { changedEndpointsIn } from './repositories/webhook-subscriptions.js';
import type { SigningKeysRepository } from '../crypto/keys.js';

// A callback may be async (re-reading state the commit changed): the transaction's caller waits for it, so
// whoever asked for the change sees its effects when the call returns.
export type AfterCommit = () => void | Promise<void>;

/** Locks held until the end of the store's transaction (advisory, by name). */
export interface Locks {
  /** One periodic task for the whole deployment at a time (task-locks.ts). */
  task(name: string): Promise<void>;
  /** One `gatehouse apply` at a time (apply-lock-repository.ts). */
  apply(): Promise<void>;
}

export interface TransactionOptions {
  /** Default: PostgreSQL's (read committed). The audit chain's verification reads one snapshot: repeatable read. */
  isolation?: 'repeatable read' | 'serializable';
}

export interface Store {
  /** True for a store over a transaction (`transaction` joins it). */
  readonly inTransaction: boolean;
  /**
   * Runs `work` in a new transaction and hands it a store over that transaction; callbacks registered on it
   * with `afterCommit` run once it has committed (awaited before this returns), and are dropped when it rolls
   * back. Inside a transaction already, `work` joins it and its callbacks wait for that commit.
   * `isolation` applies to a new transaction (a joined one keeps its own).
   */
  transaction<T>(work: (tx: Store) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs `callback` after this store's transaction commits (at once when the store is not a transaction).
   * A transaction opened some other way would never call it back, so that is refused rather than dropped.
   */
  afterCommit(callback: AfterCommit): void;
  readonly locks: Locks;
  /** True when this store's transaction changed a webhook endpoint (its notice goes out only at commit). */
  readonly changedWebhookEndpoints: boolean;

  readonly account: AccountRepository;
  readonly accountLinkRequests: AccountLinkRequestsRepository;
  readonly accountTokens: AccountTokensRepository;
  readonly auditChain: AuditChainRepository;
  readonly auditEvents: AuditEventsRepository;
  readonly authorizationCodes: AuthorizationCodesRepository;
  /** Who must be told that sessions end; read before the change that ends them. */
  logoutTargets(ending: EndingSessions, now: Date): Promise<LogoutTarget[]>;
  readonly browserSessions: BrowserSessionsRepository;
  readonly clientAdmin: ClientAdminRepository;
  readonly clientAssertions: ClientAssertionsRepository;
  readonly clients: ClientsRepository;
  readonly consents: ConsentsRepository;
  /** RFC 8693 delegations: what token exchange records, and what /account lists and revokes. */
  readonly delegations: DelegationsRepository;
  readonly deviceAuthorizations: DeviceAuthorizationsRepository;
  readonly dpopProofs: DpopProofsRepository;
  readonly federatedIdentities: FederatedIdentitiesRepository;
  /** Upstream tokens kept (sealed) for providers with store_tokens. */
  readonly federatedIdentityTokens: FederatedIdentityTokensRepository;
  readonly grants: GrantsRepository;
  readonly idempotencyKeys: IdempotencyKeysRepository;
  readonly identityProviders: IdentityProvidersRepository;
  readonly initialAccessTokens: InitialAccessTokensRepository;
  /** Typed by whoever stores the pending requests (the authorization server: its AuthorizationRequest). */
  interactions<R>(): InteractionsRepository<R>;
  readonly jobs: JobsRepository;
  /** Failed proofs of the account while linking an upstream identity (the link-proof budget). */
  readonly linkProofFailures: SecondFactorFailuresRepository;
  readonly operatorRoles: OperatorRolesRepository;
  readonly orders: OrdersRepository;
  readonly outbox: OutboxRepository;
  readonly passkeys: PasskeysRepository;
  readonly payments: PaymentsRepository;
  readonly refreshTokens: RefreshTokensRepository;
  readonly reports: ReportsRepository;
  readonly resourceServers: ResourceServersRepository;
  readonly revocations: RevocationsRepository;
  readonly secondFactorFailures: SecondFactorFailuresRepository;
  readonly secondFactors: SecondFactorsRepository;
  readonly selfService: SelfServiceRepository;
  readonly signInWays: SignInWaysRepository;
  readonly signingKeys: SigningKeysRepository;
  readonly upstreamSignIns: UpstreamSignInsRepository;
  readonly userAccessAdmin: UserAccessAdminRepository;
  readonly userAdmin: UserAdminRepository;
  readonly userAttributes: UserAttributesRepository;
  readonly users: UsersRepository;
  readonly webhookEndpoints: WebhookEndpointsRepository;
}

/** The store over `db` (a pool, or a transaction the caller opened itself: `afterCommit` is then refused). */
export function createStore(db: Db, clock: Clock): Store {
  return new DbStore(db, clock, undefined);
}

/**
 * The connection or transaction a store reads and writes through; for storage's own tests and the few
 * storage-level helpers that take one (nothing above storage needs it).
 */
export const dbOf = (store: Store): Db => (store as DbStore).db;

class DbStore implements Store {
  /** The repositories built so far, by name (a plain object: the cheapest to create per transaction). */
  private readonly built: Record<string, unknown> = {};

  constructor(
    readonly db: Db,
    private readonly clock: Clock,
    /** Registered afterCommit callbacks; undefined when not a transaction opened by a store. */
    private readonly callbacks: AfterCommit[] | undefined,
  ) {}

  get locks(): Locks {
    return this.once('locks', () => ({
      task: (name: string) => lockTask(this.db, name),
      apply: () => applyLockRepository(this.db).lock(),
    }));
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  get changedWebhookEndpoints(): boolean {
    return changedEndpointsIn(this.db);
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.db.isTransaction) return work(this);
    let callbacks: AfterCommit[] = [];
    const builder = options.isolation ? this.db.transaction().setIsolationLevel(options.isolation) : this.db.transaction();
    const result = await builder.execute(async (trx) => {
      callbacks = [];
      return work(new DbStore(trx, this.clock, callbacks));
    });
    for (const callback of callbacks) await callback();
    return result;
  }

  afterCommit(callback: AfterCommit): void {
    if (!this.db.isTransaction) {
      void callback();
      return;
    }
    if (!this.callbacks) throw new Error('afterCommit needs a transaction opened with store.transaction');
    this.callbacks.push(callback);
  }

  /** Built on first use, then kept for the life of this store. */
  private once<R>(name: string, build: () => R): R {
    let repository = this.built[name] as R | undefined;
    if (repository === undefined) {
      repository = build();
      this.built[name] = repository;
    }
    return repository;
  }

  get account() {
    return this.once('account', () => accountRepository(this.db, this.clock));
  }
  get accountLinkRequests() {
    return this.once('accountLinkRequests', () => accountLinkRequestsRepository(this.db));
  }
  get accountTokens() {
    return this.once('accountTokens', () => accountTokensRepository(this.db));
  }
  get auditChain() {
    return this.once('auditChain', () => auditChainRepository(this.db));
  }
  get auditEvents() {
    return this.once('auditEvents', () => auditEventsRepository(this.db));
  }
  get authorizationCodes() {
    return this.once('authorizationCodes', () => authorizationCodesRepository(this.db, this.clock));
  }
  logoutTargets(ending: EndingSessions, now: Date) {
    return logoutTargets(this.db, ending, now);
  }
  get browserSessions() {
    return this.once('browserSessions', () => browserSessionsRepository(this.db, this.clock));
  }
  get clientAdmin() {
    return this.once('clientAdmin', () => clientAdminRepository(this.db, this.clock));
  }
  get clientAssertions() {
    return this.once('clientAssertions', () => clientAssertionsRepository(this.db, this.clock));
  }
  get clients() {
    return this.once('clients', () => clientsRepository(this.db, this.clock));
  }
  get consents() {
    return this.once('consents', () => consentsRepository(this.db, this.clock));
  }
  get delegations() {
    return this.once('delegations', () => delegationsRepository(this.db, this.clock));
  }
  get deviceAuthorizations() {
    return this.once('deviceAuthorizations', () => deviceAuthorizationsRepository(this.db, this.clock));
  }
  get dpopProofs() {
    return this.once('dpopProofs', () => dpopProofsRepository(this.db, this.clock));
  }
  get federatedIdentities() {
    return this.once('federatedIdentities', () => federatedIdentitiesRepository(this.db));
  }
  get federatedIdentityTokens() {
    return this.once('federatedIdentityTokens', () => federatedIdentityTokensRepository(this.db));
  }
  get grants() {
    return this.once('grants', () => grantsRepository(this.db, this.clock));
  }
  get idempotencyKeys() {
    return this.once('idempotencyKeys', () => idempotencyKeysRepository(this.db));
  }
  get identityProviders() {
    return this.once('identityProviders', () => identityProvidersRepository(this.db));
  }
  get initialAccessTokens() {
    return this.once('initialAccessTokens', () => initialAccessTokensRepository(this.db, this.clock));
  }
  interactions<R>(): InteractionsRepository<R> {
    return this.once('interactions', () => interactionsRepository<unknown>(this.db, this.clock)) as InteractionsRepository<R>;
  }
  get jobs() {
    return this.once('jobs', () => jobsRepository(this.db));
  }
  get linkProofFailures() {
    return this.once('linkProofFailures', () => secondFactorFailuresRepository(this.db, this.clock, 'link_proof_failures'));
  }
  get operatorRoles() {
    return this.once('operatorRoles', () => operatorRolesRepository(this.db));
  }
  get orders() {
    return this.once('orders', () => ordersRepository(this.db));
  }
  get outbox() {
    return this.once('outbox', () => outboxRepository(this.db));
  }
  get passkeys() {
    return this.once('passkeys', () => passkeysRepository(this.db, this.clock));
  }
  get payments() {
    return this.once('payments', () => paymentsRepository(this.db));
  }
  get refreshTokens() {
    return this.once('refreshTokens', () => refreshTokensRepository(this.db, this.clock));
  }
  get reports() {
    return this.once('reports', () => reportsRepository(this.db));
  }
  get resourceServers() {
    return this.once('resourceServers', () => resourceServersRepository(this.db));
  }
  get revocations() {
    return this.once('revocations', () => revocationsRepository(this.db, this.clock));
  }
  get secondFactorFailures() {
    return this.once('secondFactorFailures', () => secondFactorFailuresRepository(this.db, this.clock));
  }
  get secondFactors() {
    return this.once('secondFactors', () => secondFactorsRepository(this.db, this.clock));
  }
  get selfService() {
    return this.once('selfService', () => selfServiceRepository(this.db));
  }
  get signInWays() {
    return this.once('signInWays', () => signInWaysRepository(this.db));
  }
  get signingKeys() {
    return this.once('signingKeys', () => signingKeysRepository(this.db));
  }
  get upstreamSignIns() {
    return this.once('upstreamSignIns', () => upstreamSignInsRepository(this.db));
  }
  get userAccessAdmin() {
    return this.once('userAccessAdmin', () => userAccessAdminRepository(this.db, this.clock));
  }
  get userAdmin() {
    return this.once('userAdmin', () => userAdminRepository(this.db));
  }
  get userAttributes() {
    return this.once('userAttributes', () => userAttributesRepository(this.db, this.clock));
  }
  get users() {
    return this.once('users', () => usersRepository(this.db, this.clock));
  }
  get webhookEndpoints() {
    return this.once('webhookEndpoints', () => webhookEndpointsRepository(this.db));
  }
}
