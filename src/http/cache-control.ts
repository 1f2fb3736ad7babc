// Responses to authenticated requests are private to the caller (RFC 9111 §5.2.2.7) and must be
// revalidated before reuse (§5.2.2.4); never `public`. Error responses already carry no-store.
import type { FastifyReply, FastifyRequest } from 'fastify';

const PRIVATE_NO_CACHE = 'private, no-cache';

export async function privateNoCache(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', PRIVATE_NO_CACHE);
  return payload;
}
