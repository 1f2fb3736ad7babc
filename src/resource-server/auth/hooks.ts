// The Fastify edge of bearer authentication: an onRequest hook that sets request.principal, a body
// check for the duplicate-token rule, and `requireScope` for each route (RFC 6750 §3.1).
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { ResourceServer } from '@gatehouse/resource-server';
import type { Principal } from '../../http/principal.js';
import { refuseBodyToken } from './bearer-token.js';
import { bearerError, problemOf } from './challenges.js';

/**
 * onRequest hook: the resource-server kit's request check (where the token travels, the token, revocation,
 * DPoP possession) before the body is even read; the route's scopes are checked by requireScope.
 */
export function authenticateRequests(server: Pick<ResourceServer, 'authenticateRequest'>) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const result = await server.authenticateRequest({ method: request.method, url: request.url, headers: request.headers });
    if (!result.ok) throw problemOf(result);
    request.principal = result.identity;
  };
}

/** preValidation hook: a token in a form body next to the header is a second method (RFC 6750 §2). */
export async function refuseTokenInBody(request: FastifyRequest): Promise<void> {
  refuseBodyToken(request);
}

/** A scope check that also says which scopes it wants, so the OpenAPI document is derived from it. */
export type ScopeCheck = preHandlerAsyncHookHandler & { readonly requiredScopes: readonly string[]; readonly anyOf?: boolean };

/** Every listed scope is required; a token without one gets 403 insufficient_scope naming them. */
export function requireScope(...scopes: string[]): ScopeCheck {
  const check = async function checkScope(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const principal = authenticatedPrincipal(request);
    if (!scopes.every((s) => principal.scopes.has(s))) {
      throw bearerError('insufficient_scope', `This operation requires the scope: ${scopes.join(' ')}.`, 'scope', scopes);
    }
  };
  return Object.assign(check, { requiredScopes: scopes });
}

/** Any one of the listed scopes will do; a token with none gets 403 insufficient_scope naming the first. */
export function requireAnyScope(...scopes: [string, ...string[]]): ScopeCheck {
  const check = async function checkAnyScope(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const principal = authenticatedPrincipal(request);
    if (!scopes.some((s) => principal.scopes.has(s))) {
      throw bearerError('insufficient_scope', `This operation requires one of the scopes: ${scopes.join(', ')}.`, 'scope', [scopes[0]]);
    }
  };
  return Object.assign(check, { requiredScopes: scopes, anyOf: true });
}

/** The OpenAPI security requirements of a route: one requirement, or one per alternative of requireAnyScope. */
export function securityOfRoute(preHandler: unknown): { oauth2: string[] }[] {
  const handlers: ScopeCheck[] = Array.isArray(preHandler) ? preHandler : preHandler ? [preHandler as ScopeCheck] : [];
  const all = handlers.filter((h) => !h.anyOf).flatMap((h) => [...(h.requiredScopes ?? [])]);
  const alternatives = handlers.find((h) => h.anyOf)?.requiredScopes;
  if (alternatives) return alternatives.map((s) => ({ oauth2: [...all, s] }));
  return all.length > 0 ? [{ oauth2: all }] : [];
}

/** The principal set by authentication; a route outside the authenticated tree is a programming error. */
export function authenticatedPrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is not behind bearer authentication');
  return request.principal;
}
