// One sign-in pipeline for both faces (/interaction and /account), modelled on Ory Kratos: a method
// (password-method.ts, one-time-code-methods.ts, passkey-method.ts) checks one proof and charges its
// budgets; `attempt` runs it and records what went wrong; `completeSignIn` is the ONLY place a browser
// session is signed in (sessions.login) and writes `login.succeeded`; `refuseSignIn` writes `login.failed`
// and the refusal log line; a used-up budget is `login.locked_out`. Every event has one shape, whichever
// face and method (docs/audit-log.md): the client when there is one, the user when known, and details
// naming the face, the method and the reason or the amr.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditSink } from '../../audit/audit-sink.js';
import { PageError, ProblemError } from '../../http/errors.js';
import { logRefusal } from '../../http/refusal-log.js';
import type { UpstreamTokenKeeper } from '../../federation/upstream-tokens.js';
import type { BrowserSession } from '../../storage/repositories/browser-sessions-repository.js';
import type { SealedTokensOfSignIn } from '../../storage/repositories/second-factors-repository.js';
import type { BrowserSessions } from '../session/browser-sessions.js';
import type { SecondFactorBudget } from './second-factor-budget.js';
import type { MethodOutcome, Refusal, SignInMethodName } from './sign-in-method.js';

export interface SignInContext {
  request: FastifyRequest;
  face: 'interaction' | 'account';
  method: SignInMethodName;
  /** The client of the authorization flow; none on /account. */
  clientId?: string | undefined;
  /** The account the attempt is for when known before it runs (a second factor's pending user). */
  userId?: string | undefined;
  /**
   * How the face answers a refusal: `form` (a 303 back to the page: the refusal line is written here) or
   * `json` (a thrown Problem Details error, whose own log line the error edge writes).
   */
  answer: 'form' | 'json';
}

export type SignedInSession = BrowserSession & { userId: string; authTime: number };

export interface SignInPipelineDeps {
  sessions: Pick<BrowserSessions, 'login'>;
  secondFactorBudget: SecondFactorBudget;
  audit: AuditSink;
  /** --store-tokens: an upstream sign-in's tokens are written here, once the sign-in is complete. */
  upstreamTokens: Pick<UpstreamTokenKeeper, 'keep'>;
}

/** What a sign-in proved; after an upstream provider with --store-tokens, its tokens (sealed) come along. */
export interface Proved {
  userId: string;
  amr: readonly string[];
  upstreamTokens?: SealedTokensOfSignIn | undefined;
}

export interface SignInPipeline {
  /** Runs one method; a refusal is recorded (refuseSignIn), a used-up budget (429) is `login.locked_out` and rethrown. */
  attempt(context: SignInContext, run: () => Promise<MethodOutcome>): Promise<MethodOutcome>;
  /**
   * Signs the browser in under a new session id (no fixation) with what was proved; the only caller of
   * sessions.login, and the only place an upstream sign-in's tokens are written (--store-tokens): a sign-in
   * that stops before this (abandoned at the account's own second factor) leaves none stored.
   */
  completeSignIn(context: SignInContext, reply: FastifyReply, old: BrowserSession | undefined, proved: Proved): Promise<SignedInSession>;
  refuseSignIn(context: SignInContext, refusal: Refusal): Promise<void>;
}

const SIGNED_IN_ELSEWHERE = 'This browser completed another sign-in at the same moment, in another tab or window. That sign-in stands; reload to continue.';

const isRateLimited = (error: unknown) => (error as { status?: number } | null)?.status === 429;

export function signInPipeline(deps: SignInPipelineDeps): SignInPipeline {
  const { audit } = deps;
  const common = (context: SignInContext, userId: string | undefined) => ({
    ...(userId ? { subject: userId } : {}),
    ...(context.clientId ? { clientId: context.clientId } : {}),
    traceId: context.request.id,
  });

  async function refuseSignIn(context: SignInContext, refusal: Refusal): Promise<void> {
    const userId = refusal.userId ?? context.userId;
    // The username itself is never logged: people type their password into it often enough.
    if (context.answer === 'form') logRefusal(context.request, { reason: refusal.reason, client_id: context.clientId, user_id: userId }, 303);
    await audit.emit({
      type: 'login.failed',
      actor: { kind: 'system' },
      ...common(context, userId),
      details: { face: context.face, method: context.method, reason: refusal.reason },
    });
  }

  return {
    async attempt(context, run) {
      let outcome: MethodOutcome;
      try {
        outcome = await run();
      } catch (error) {
        // A used-up failure budget refuses before any proof is checked (429): the lock-out is a security event.
        if (isRateLimited(error)) {
          await audit.emit({
            type: 'login.locked_out',
            actor: { kind: 'system' },
            ...common(context, context.userId),
            details: { face: context.face, method: context.method },
          });
        }
        throw error;
      }
      if (!outcome.ok) await refuseSignIn(context, outcome);
      return outcome;
    },

    async completeSignIn(context, reply, old, { userId, amr, upstreamTokens }) {
      // The audit event and the sign-in's amr commit with the session or not at all.
      const fresh = await deps.sessions.login(reply, old, userId, async (tx, session) => {
        await audit.emit(
          {
            type: 'login.succeeded',
            actor: { kind: 'user', userId, ...(context.clientId ? { clientId: context.clientId } : {}) },
            ...common(context, userId),
            details: { face: context.face, method: context.method, amr: amr.join(' ') },
          },
          { tx },
        );
        await tx.secondFactors.recordSignIn(session.idHash, { amr: [...amr], userAgent: context.request.headers['user-agent'], ip: context.request.ip });
      });
      // Another sign-in in this browser took the session over a moment ago (a second tab): that one stands, and
      // this one starts no second session for the same cookie (user-rules/sign-in-session.ts).
      if (!fresh) {
        const reason = 'session_taken_over';
        await audit.emit({
          type: 'login.failed',
          actor: { kind: 'system' },
          ...common(context, userId),
          details: { face: context.face, method: context.method, reason },
        });
        // The error edge writes the refusal's log line.
        throw context.answer === 'form'
          ? new PageError('Signed in elsewhere', SIGNED_IN_ELSEWHERE, 409, {}, { back: { href: '/account', label: 'Continue' }, log: { reason } })
          : new ProblemError('conflict', SIGNED_IN_ELSEWHERE, { log: { reason } });
      }
      // A sign-in with password and second factor starts the account's second-factor count again.
      if (amr.includes('mfa')) await deps.secondFactorBudget.clear(userId);
      await deps.upstreamTokens.keep(upstreamTokens);
      return fresh as SignedInSession;
    },

    refuseSignIn,
  };
}
