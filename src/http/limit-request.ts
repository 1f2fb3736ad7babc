// Route-side helpers for the limits of src/http/rate-limit.ts: count a request and pass the
// RateLimit-Policy / RateLimit headers (draft-ietf-httpapi-ratelimit-headers) on to the answer, so a
// caller sees its remaining budget on success too, not only on the 429.
import type { FastifyReply } from 'fastify';
import type { LimitName, RateLimits } from './rate-limit.js';

/** Counts one request for `key` under `name`; throws the 429 past the limit, else sets the headers. */
export async function limitRequest(limits: RateLimits, reply: FastifyReply, name: LimitName, key: string): Promise<void> {
  const headers = await limits.hit(name, key);
  if (headers) reply.headers({ ...headers });
}
