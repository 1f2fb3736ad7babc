// What the passkey ceremonies' JSON endpoints share: a small body (a passkey answer is a few KiB; the JSON
// parser already refuses deep nesting), a schema that refuses anything but {csrf, name?, response?}, errors
// as Problem Details (RFC 9457) with the reason in the log, and answers that are never cached.
import type { FastifyReply } from 'fastify';
import { ProblemError } from '../../http/errors.js';
import type { PasskeyFailure } from './passkeys.js';

const PASSKEY_BODY_LIMIT = 32 * 1024;

const body = {
  type: 'object',
  properties: {
    csrf: { type: 'string', maxLength: 200 },
    name: { type: 'string', maxLength: 200 },
    response: { type: 'object', maxProperties: 16 },
  },
  required: ['csrf'],
  additionalProperties: false,
} as const;

/** Route options of a ceremony endpoint; `params` when the path has the interaction id. */
export const passkeyRouteOptions = (params?: object) => ({
  config: { face: 'problem' as const, limit: 'pages' as const },
  bodyLimit: PASSKEY_BODY_LIMIT,
  schema: { body, ...(params ? { params } : {}) },
});

export interface PasskeyBody {
  csrf: string;
  name?: string;
  response?: Record<string, unknown>;
}

export const sendJson = (reply: FastifyReply, value: unknown): FastifyReply =>
  reply.code(200).header('cache-control', 'no-store').type('application/json').send(value);

/** The same answer for every refused passkey; the log line says why. */
/** `reason`: a PasskeyFailure, 'no_passkeys' or 'nothing_to_sign_in' (a method's refusal reason). */
export const passkeyRefused = (
  reason: PasskeyFailure | 'no_passkeys' | 'nothing_to_sign_in' | (string & {}),
  log: Record<string, string | undefined> = {},
): ProblemError => new ProblemError('bad-request', 'The passkey was not accepted. Try again, or use another way to sign in.', { log: { reason, ...log } });

/** The browser session's sign-in expired or the flow is over: reload the page. */
export const passkeyFlowGone = (reason: string): ProblemError =>
  new ProblemError('conflict', 'This page has expired. Reload it and try again.', { log: { reason } });
