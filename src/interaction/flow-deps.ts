// What the login/consent flow needs, passed explicitly (no service locator).
import type { Clock } from '../clock.js';
import type { Brand } from '../http/brand.js';
import type { AuthorizationCodeIssuer } from '../oauth/codes/authorization-codes.js';
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import type { ClientsRepository } from '../storage/repositories/clients-repository.js';
import type { ResourceRegistry } from '../oauth/resources/registry.js';
import type { ConsentsRepository } from '../storage/repositories/consents-repository.js';
import type { InteractionsRepository } from '../storage/repositories/interactions-repository.js';
import type { UsersRepository } from '../storage/repositories/users-repository.js';
import type { DeviceAuthorizationsRepository } from '../storage/repositories/device-authorizations-repository.js';
import type { BrowserSessions } from './session/browser-sessions.js';
import type { LoginGuard } from './login/login-failures.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { SecondFactors } from './mfa/second-factors.js';
import type { PasskeyCeremonies } from './passkeys/passkeys.js';
import type { SignInMethods } from './sign-in/sign-in-methods.js';
import type { SignInPipeline } from './sign-in/sign-in-pipeline.js';
import type { FederationFlowDeps } from './federation/federation-flow-deps.js';

export interface FlowDeps {
  issuer: string;
  brand: Brand;
  apiAudience: string;
  clock: Clock;
  /** Seconds a proof of the account stays fresh for binding a factor (REAUTH_MAX_AGE, mfa/fresh-proof.ts). */
  reauthMaxAge: number;
  /** How long a started login/consent may take. */
  interactionTtlSeconds: number;
  sessions: BrowserSessions;
  interactions: InteractionsRepository<AuthorizationRequest>;
  consents: ConsentsRepository;
  clients: Pick<ClientsRepository, 'find'>;
  /** The consent page describes each scope as its resource server registered it. */
  resources: Pick<ResourceRegistry, 'catalogue'>;
  users: Pick<UsersRepository, 'findByUsername'>;
  codes: AuthorizationCodeIssuer;
  /** RFC 8628: user codes entered on /device, and the approval or denial that ends such a flow (device/). */
  devices: Pick<DeviceAuthorizationsRepository, 'enter' | 'findPending' | 'decide'>;
  loginGuard: LoginGuard;
  /** Security events: logins, lockouts, consent (docs/audit-log.md). */
  audit: AuditSink;
  secondFactors: SecondFactors;
  passkeys: PasskeyCeremonies;
  /** The proofs a browser signs in with, and the one pipeline that records and completes them (sign-in/). */
  methods: SignInMethods;
  signIn: SignInPipeline;
  /** Upstream identity providers (federation/, docs/federation.md). */
  federation: FederationFlowDeps;
  /** Links under the login form to the self-service pages (src/self-service/), with the interaction to return to. */
  selfServiceLinks?: (interaction: string | undefined) => LoginLinks;
  /** Tells the account's address that signing in with a provider was added (a security notice; docs/email.md). */
  providerLinkedNotice?: (userId: string, provider: string, acceptLanguage: string | undefined) => Promise<void>;
}

export interface LoginLinks {
  forgotPassword?: string;
  signup?: string;
}

/** A started login/consent may take this long (capped by the session lifetime). */
export const INTERACTION_TTL_SECONDS = 1800;
