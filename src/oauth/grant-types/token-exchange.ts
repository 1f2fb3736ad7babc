// RFC 8693 token exchange: a confidential client presents a user's access token (issued here) and gets an
// access token for another audience, acting for that user (docs/token-exchange.md). The rules, each refused
// before anything is recorded:
//   - subject_token is one of our live access tokens (signature, iss, times, not revoked: the one verifier of
//     /introspect), of a user, under a grant that is still live; else invalid_grant;
//   - a DPoP-bound subject token (or actor token) needs a DPoP proof of its key on this request: the binding
//     says the token is usable only with its key, and an exchange is a use;
//   - the target audience (`resource` or `audience`) is a registered resource server, not operator-only, whose
//     policy lists this client (`token_exchange_clients`); else invalid_target;
//   - the scope is of the target audience and never exceeds what the subject holds: a token of the grant
//     itself holds its own scopes for its own audience, and for another audience what the user granted under
//     that grant (a token carries only its audience's scopes, RFC 8707, so the grant is the only record of the
//     rest); an exchanged token holds only its own scope, so a chain only ever narrows; else invalid_scope;
//   - a chain is at most MAX_DELEGATION_DEPTH exchanges long; past it, invalid_grant (never a cut `act`);
//   - the token never outlives the subject token;
//   - delegation: `act.sub` is the actor — the actor token's subject, else the client — and the subject
//     token's own `act` is nested below it whole; impersonation (no new `act`) only for a client allowed it,
//     and only without an actor_token (an actor token always names its subject: delegation);
//   - `may_act` in the subject token names who may act: any other actor is invalid_grant;
//   - only access tokens are issued (requested_token_type), only access tokens are accepted as subject and actor.
// Every exchange is recorded under its delegation and grant before the token is signed (so revoking either
// revokes it) and audited (`token.exchanged`) in the same transaction.
import { decodeJwt } from 'jose';
import { OAuthError } from '../../http/errors.js';
import type { AuditSink } from '../../audit/audit-sink.js';
import type { Clock } from '../../clock.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { DelegationsRepository } from '../../storage/repositories/delegations-repository.js';
import type { Store } from '../../storage/store.js';
import type { UsersRepository } from '../../storage/repositories/users-repository.js';
import { TOKEN_EXCHANGE_GRANT } from '../../storage/repositories/clients-repository.js';
import { formatScope, parseScope } from '../../scopes.js';
import type { AccessTokenIssuer } from '../issued-tokens/access-tokens.js';
import type { AccessTokenClaims, BearerVerifier } from '../issued-tokens/bearer-access-token.js';
import { resourceOfAudience } from '../issued-tokens/token-audience.js';
import { mappedClaims } from '../resources/claims.js';
import { accessTokenLifetime } from '../resources/audience.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ClientLookup } from '../clients/client-cache.js';
import type { Grant } from './grant-type.js';
import type { GrantDeps } from './index.js';

/** RFC 8693 3: the only token type accepted and issued here. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** The RFC 8693 4.1 `act` claim: the acting party, and below it whoever acted before. */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

const invalidSubject = () => new OAuthError('invalid_grant', 'The subject token is invalid, expired, revoked, or was not issued by this server.');

function requireAccessTokenType(value: string | undefined, parameter: string): void {
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${parameter} is required.`);
  if (value !== ACCESS_TOKEN_TYPE)
    throw new OAuthError('invalid_request', `${parameter} must be ${ACCESS_TOKEN_TYPE}: only access tokens issued here are exchanged.`);
}

/**
 * How many exchanges one chain may hold: a token exchanged five times in a row is not exchanged again. Each
 * link is an API passing the user's authority on; five covers agent → tool → service → backend chains with
 * room to spare, and it is also the deepest `act` every verifier accepts (packages/resource-server-kit reads
 * at most five levels and refuses a deeper token as malformed): a sixth link would issue a token no API takes.
 * Not a setting for that reason. Past it, the exchange is refused with this number in the error — never an
 * `act` cut short, which would hide who acted.
 */
export const MAX_DELEGATION_DEPTH = 5;

const chainTooLong = () =>
  new OAuthError(
    'invalid_grant',
    `The subject token ends a delegation chain of ${MAX_DELEGATION_DEPTH} exchanges, the most allowed: it cannot be exchanged again.`,
  );

/** Levels of an `act` chain (the verifier already refused a malformed or over-deep one). */
const levelsOf = (act: ActClaim | undefined): number => (act === undefined ? 0 : 1 + levelsOf(act.act));

/** RFC 8693 4.4: whoever `may_act` names (by sub, and by iss when it has one) may act; a malformed one names nobody. */
function mayAct(mayActClaim: unknown, actor: string, issuer: string): boolean {
  if (mayActClaim === undefined) return true;
  if (typeof mayActClaim !== 'object' || mayActClaim === null) return false;
  const { sub, iss } = mayActClaim as { sub?: unknown; iss?: unknown };
  return sub === actor && (iss === undefined || iss === issuer);
}

function tokenExchangeGrant(deps: {
  verify: BearerVerifier;
  issuer: AccessTokenIssuer;
  resources: Pick<ResourceRegistry, 'catalogue'>;
  delegations: Pick<DelegationsRepository, 'originOf'>;
  store: Pick<Store, 'transaction'>;
  users: Pick<UsersRepository, 'findById'>;
  clients: Pick<ClientLookup, 'find'>;
  audit: AuditSink;
  clock: Clock;
  config: { ISSUER: string; ACCESS_TOKEN_TTL: number };
}): Grant {
  /** A presented token of ours, verified like a bearer token, and its key proven when it is DPoP-bound. */
  async function verified(token: string, dpopJkt: string | undefined, refusal: () => OAuthError): Promise<AccessTokenClaims> {
    const claims = await deps.verify(token);
    if (!claims) throw refusal();
    if (claims.cnf_jkt !== undefined && claims.cnf_jkt !== dpopJkt) {
      throw new OAuthError('invalid_grant', 'The token is DPoP-bound: send a DPoP proof of its key with the exchange.');
    }
    return claims;
  }

  /** act.sub of the new token: the actor token's subject, else the client (null: impersonation, when allowed). */
  async function actorOf(
    client: Client,
    params: Readonly<Partial<Record<string, string>>>,
    dpopJkt: string | undefined,
  ): Promise<{ actor: string | null; claimed: string }> {
    if (params.actor_token === undefined) {
      if (params.actor_token_type !== undefined) throw new OAuthError('invalid_request', 'actor_token_type is sent only with an actor_token.');
      return { actor: client.tokenExchangeImpersonation ? null : client.id, claimed: client.id };
    }
    requireAccessTokenType(params.actor_token_type, 'actor_token_type');
    const actor = await verified(params.actor_token, dpopJkt, () => new OAuthError('invalid_grant', 'The actor token is invalid, expired or revoked.'));
    // The actor token speaks for the client presenting it: someone else's token names no actor of this client.
    if (actor.client_id !== client.id) throw new OAuthError('invalid_grant', 'The actor token was issued to another client.');
    return { actor: actor.sub, claimed: actor.sub };
  }

  return {
    type: TOKEN_EXCHANGE_GRANT,
    parameters: ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'resource', 'audience', 'scope', 'requested_token_type'],
    async handle({ client, params, dpopJkt }) {
      // RFC 8693 5: the client authenticates; a public client could be anyone holding a user's token.
      if (client.type !== 'confidential') throw new OAuthError('unauthorized_client', 'Token exchange is for confidential clients.');
      if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
        throw new OAuthError('invalid_request', `Only access tokens are issued: requested_token_type must be ${ACCESS_TOKEN_TYPE}.`);
      }
      if (params.subject_token === undefined || params.subject_token === '') throw new OAuthError('invalid_request', 'subject_token is required.');
      requireAccessTokenType(params.subject_token_type, 'subject_token_type');
      const { resource, audience: logical } = params;
      if (resource !== undefined && logical !== undefined && resource !== logical) {
        throw new OAuthError('invalid_target', 'resource and audience name different targets; name one.');
      }

      const subject = await verified(params.subject_token, dpopJkt, invalidSubject);
      // The verifier allows CLOCK_SKEW past exp; an exchange does not (its token could not live a second
      // anyway), so an expired token is refused before its records — purged at expiry — are looked up.
      if (subject.exp <= Math.floor(deps.clock.now() / 1000)) throw invalidSubject();
      // Verified above: may_act is read from the same signed token; act comes whole from the verifier.
      const payload = decodeJwt(params.subject_token);
      const below: ActClaim | undefined = subject.act;
      const { actor, claimed } = await actorOf(client, params, dpopJkt);
      if (!mayAct(payload.may_act, claimed, deps.config.ISSUER)) {
        throw new OAuthError('invalid_grant', 'The subject token names who may act for its subject (may_act), and it is not this actor.');
      }

      const catalogue = await deps.resources.catalogue();
      const target = resource ?? logical ?? resourceOfAudience(subject.aud, deps.config.ISSUER);
      const server = target === undefined ? undefined : catalogue.find(target);
      if (!server || server.operatorOnly) throw new OAuthError('invalid_target', 'The target is not a registered resource server.');
      if (!server.tokenExchangeClients.includes(client.id)) {
        throw new OAuthError('invalid_target', 'This client may not exchange tokens for this resource server (its token_exchange_clients).');
      }

      // Only a user's token, issued under a grant (the sign-in and consent the delegation is traced back to).
      const origin = await deps.delegations.originOf({ jti: subject.jti, userId: subject.sub, clientId: subject.client_id });
      if (!origin) throw new OAuthError('invalid_grant', 'The subject token does not act for a user.');
      // Counted on the delegation rows (an impersonating link adds none to act), and on act itself.
      if (origin.depth >= MAX_DELEGATION_DEPTH || (actor !== null && levelsOf(below) >= MAX_DELEGATION_DEPTH)) throw chainTooLong();
      // As on refresh, the app's current registration decides: a scope removed from it is not exchanged either.
      const app = await deps.clients.find(origin.grantClientId);
      if (!app) throw new OAuthError('invalid_grant', 'The application the user granted access to is no longer registered.');
      // The ceiling. Always within what the user granted and the app is still registered for. Then: a token of
      // the grant itself carries only its own audience's scopes (RFC 8707), so it bounds the scopes of its
      // audience, and the grant (what the user consented to) bounds the others — the first exchange is how an
      // API reaches another one for the user. An exchanged token bounds everything by its own scope: each
      // exchange was cut to its subject's, so a chain's ceiling is the intersection of its links and never
      // goes back up to the grant (an API given `a` at X must not turn it into `b` at Y).
      const subjectAudience = resourceOfAudience(subject.aud, deps.config.ISSUER);
      const chained = origin.delegationId !== undefined;
      const held = (s: string) =>
        origin.grantScope.includes(s) &&
        app.scopes.includes(s) &&
        catalogue.ownerOf(s) !== undefined &&
        (chained || catalogue.ownerOf(s)?.identifier === subjectAudience ? subject.scope.includes(s) : true);
      const own = (s: string) => server.scopes.some((x) => x.name === s);
      const requested = parseScope(params.scope);
      if (requested.some((s) => !held(s))) throw new OAuthError('invalid_scope', 'The requested scope exceeds what the subject token and its grant hold.');
      if (requested.some((s) => !own(s))) throw new OAuthError('invalid_scope', 'The requested scope does not belong to the target resource server.');
      const scope = requested.length > 0 ? requested : server.scopes.map((x) => x.name).filter(held);
      if (scope.length === 0) throw new OAuthError('invalid_scope', 'The subject token and its grant hold no scope of the target resource server.');
      const user = await deps.users.findById(subject.sub);
      if (!user) throw invalidSubject();

      const prepared = deps.issuer.prepare();
      // Never beyond the subject token: a delegation cannot outlast what it was made from. Counted from the new
      // token's own iat (a clock read taken before it could fall a second earlier and give exp = subject's + 1).
      const lifetime = Math.min(accessTokenLifetime(server, deps.config.ACCESS_TOKEN_TTL), subject.exp - prepared.iat);
      if (lifetime <= 0) throw invalidSubject();
      // lifetime is at most ACCESS_TOKEN_TTL already (accessTokenLifetime), so this is the token's own exp.
      const expiresAt = new Date((prepared.iat + lifetime) * 1000);
      const act: ActClaim | undefined = actor === null ? below : { sub: actor, ...(below ? { act: below } : {}) };

      const outcome = await deps.store.transaction(async (tx) => {
        const recorded = await tx.delegations.record({
          userId: user.id,
          origin,
          clientId: client.id,
          actor,
          audience: server.identifier,
          scope,
          jti: prepared.jti,
          expiresAt,
        });
        if (recorded.recorded) {
          await deps.audit.emit(
            {
              type: 'token.exchanged',
              actor: { kind: 'user', userId: user.id, clientId: client.id },
              subject: user.id,
              clientId: client.id,
              details: {
                audience: server.identifier,
                scope: formatScope(scope),
                actor: actor ?? 'impersonation',
                subject_client_id: subject.client_id,
                jti: prepared.jti,
              },
            },
            { tx },
          );
        }
        return recorded;
      });
      if (!outcome.recorded) {
        throw new OAuthError(
          'invalid_grant',
          outcome.reason === 'grant_revoked' ? 'The grant of the subject token is no longer valid.' : 'The user revoked this delegation.',
        );
      }
      const issued = await deps.issuer.issue(
        {
          sub: user.id,
          clientId: client.id,
          scope,
          audience: server.identifier,
          lifetime,
          ...(subject.auth_time !== undefined ? { authTime: subject.auth_time } : {}),
          ...(subject.amr !== undefined && subject.acr !== undefined ? { authentication: { amr: subject.amr, acr: subject.acr } } : {}),
          ...(dpopJkt ? { cnfJkt: dpopJkt } : {}),
          extraClaims: { ...mappedClaims(server.scopes, scope, 'access_token', user.attributes), ...(act ? { act } : {}) },
        },
        prepared,
      );
      return {
        access_token: issued.token,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: dpopJkt ? 'DPoP' : 'Bearer',
        expires_in: issued.expiresIn,
        scope: formatScope(scope),
      };
    },
  };
}

export const tokenExchange = (deps: GrantDeps): Grant =>
  tokenExchangeGrant({
    verify: deps.bearerTokens,
    issuer: deps.accessTokens,
    resources: deps.resources,
    delegations: deps.delegations,
    store: deps.store,
    users: deps.users,
    clients: deps.clients,
    audit: deps.audit,
    clock: deps.clock,
    config: deps.config,
  });
