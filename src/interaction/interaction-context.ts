// What the three interaction routes share: loading the parked request with its client and (live) browser
// session, answering with a page or a 303, and finishing the flow exactly once.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PageError } from '../http/errors.js';
import { pageSecurityHeaders } from '../http/html.js';
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import { REDIRECT_STATUS } from '../oauth/authorize/redirect.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import type { Client } from '../storage/repositories/clients-repository.js';
import type { Interaction, SessionWithUsername } from '../storage/repositories/interactions-repository.js';
import { interactionPath } from './begin.js';
import { completeAuthorization } from './complete.js';
import type { FlowDeps } from './flow-deps.js';
import type { Next } from './answer.js';
import { needsStepUp } from './mfa/step-up.js';

export type InteractionRequest = FastifyRequest<{ Params: { id: string } }>;

// The id is a base64url random token; anything else is refused before touching the database.
export const interactionRouteOptions = {
  config: { face: 'page' as const, limit: 'pages' as const },
  schema: { params: { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } }, required: ['id'] } },
};

export interface LoadedInteraction {
  interaction: Interaction<AuthorizationRequest>;
  client: Client;
  /** The browser session the interaction belongs to; undefined when either expired or it is another browser's. */
  session: SessionWithUsername | undefined;
}

export async function loadInteraction(request: InteractionRequest, deps: FlowDeps): Promise<LoadedInteraction> {
  const found = await deps.interactions.findWithSession(request.params.id, deps.sessions.cookie(request));
  const client = found && (await deps.clients.find(found.interaction.clientId));
  request.clientId = found?.interaction.clientId;
  if (!found || !client)
    throw new PageError(
      'Sign-in not found',
      'This sign-in link is not valid. Return to the application and start again.',
      400,
      {},
      { log: { reason: 'interaction_not_found' } },
    );
  const { interaction, session } = found;
  return { interaction, client, session: interaction.expired ? undefined : session };
}

export const sendPage = (reply: FastifyReply, html: string, status = 200, headers: Record<string, string> = pageSecurityHeaders): FastifyReply =>
  reply.code(status).headers(headers).type('text/html; charset=utf-8').send(html);

/** RFC 9700 4.12: after a POST the browser goes on with 303, so credentials are never re-posted. */
export const seeOther = (reply: FastifyReply, url: string): FastifyReply => reply.headers({ 'cache-control': 'no-store' }).redirect(url, REDIRECT_STATUS);

/**
 * Consumes the interaction (single use) and issues the code; a lost race goes back to the page. No code is
 * issued while the session lacks a second factor the flow needs (mfa/step-up.ts), whichever step asks to
 * finish — a consent posted straight from the set-up offer goes back to the page like any other.
 */
export async function finishInteraction(
  id: string,
  session: BrowserSession & { userId: string; authTime: number },
  deps: FlowDeps,
  flow: { request: AuthorizationRequest; client: Pick<Client, 'requireMfa'> },
): Promise<Next> {
  if (await needsStepUp(session, flow.request, flow.client, deps.secondFactors)) return interactionPath(id);
  const consumed = await deps.interactions.consume(id, session.idHash);
  if (!consumed) return interactionPath(id);
  return completeAuthorization(consumed.request, session, deps);
}
