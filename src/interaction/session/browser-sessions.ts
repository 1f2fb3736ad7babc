// The browser session as the pages see it: read from the cookie, started (anonymous or after login),
// replaced on login (OWASP session fixation: the pre-login id is deleted, never promoted; what that means for
// the replaced session — its sid kept, or its end announced — is user-rules/sign-in-session.ts) and ended.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { epochSeconds } from '../../clock.js';
import type { BrowserSession, BrowserSessionsRepository } from '../../storage/repositories/browser-sessions-repository.js';
import type { Store } from '../../storage/store.js';
import type { SessionSignIn } from '../../user-rules/sign-in-session.js';
import { sessionCookieName, sessionCookieOptions } from './session-cookie.js';

export interface BrowserSessions {
  /** The raw session id from the cookie, for lookups that join the session (interactions.findWithSession). */
  cookie(request: FastifyRequest): string | undefined;
  current(request: FastifyRequest): Promise<BrowserSession | undefined>;
  /** The current session, or a new anonymous one (with its cookie) when there is none. */
  ensure(request: FastifyRequest, reply: FastifyReply): Promise<BrowserSession>;
  /**
   * Ends the old session and starts an authenticated one under a new id (and cookie); undefined, with no
   * cookie set, when another sign-in in this browser took `old` over meanwhile. `within` runs in the sign-in's
   * transaction (what must commit with it: its audit event and amr).
   */
  login(
    reply: FastifyReply,
    old: BrowserSession | undefined,
    userId: string,
    within?: (tx: Store, session: BrowserSession) => Promise<void>,
  ): Promise<BrowserSession | undefined>;
  end(reply: FastifyReply, session: BrowserSession | undefined): Promise<void>;
}

export function browserSessions(deps: {
  repository: BrowserSessionsRepository;
  issuer: string;
  ttlSeconds: number;
  clock: Clock;
  /** Ends a session with what must happen with it (logout tokens, the audit event); default: the row is deleted. */
  ending?: (session: BrowserSession) => Promise<void>;
  /** Signs in over a session with what that means for it, in one transaction (user-rules/sign-in-session.ts). */
  signingIn: (input: SessionSignIn) => Promise<(BrowserSession & { id: string }) | undefined>;
}): BrowserSessions {
  const { repository, issuer, ttlSeconds, clock } = deps;
  const name = sessionCookieName(issuer);
  const setCookie = (reply: FastifyReply, id: string) => reply.setCookie(name, id, sessionCookieOptions(issuer, ttlSeconds));

  const cookie = (request: FastifyRequest): string | undefined => request.cookies[name] || undefined;
  const current = async (request: FastifyRequest) => {
    const id = cookie(request);
    return id ? repository.find(id) : undefined;
  };

  return {
    cookie,
    current,
    async ensure(request, reply) {
      const existing = await current(request);
      if (existing) return existing;
      const { id, ...session } = await repository.start({ userId: null, authTime: null, ttlSeconds });
      setCookie(reply, id);
      return session;
    },
    async login(reply, old, userId, within) {
      const started = await deps.signingIn({ old, userId, authTime: epochSeconds(clock), ttlSeconds, ...(within ? { within } : {}) });
      if (!started) return undefined;
      const { id, ...session } = started;
      setCookie(reply, id);
      return session;
    },
    async end(reply, session) {
      if (session) await (deps.ending ? deps.ending(session) : repository.end(session.idHash));
      reply.clearCookie(name, sessionCookieOptions(issuer, 0));
    },
  };
}
