// The kit as a Fastify plugin: serves the RFC 9728 metadata document, checks every other request with
// verifyRequest in an onRequest hook (before the body is read), and answers a refusal with its status,
// `WWW-Authenticate` and an OAuth error body `{ error, error_description }`. The identity is on
// `request.gatehouse`. Register it in the encapsulation context of the routes it protects.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Refusal } from './challenge.js';
import type { Identity } from './identity.js';
import type { ResourceServer } from './resource-server.js';

declare module 'fastify' {
  interface FastifyRequest {
    gatehouse?: Identity;
  }
}

export interface GatehousePluginOptions {
  resourceServer: ResourceServer;
  /** Called with every refusal (log it, count it); never changes the answer. */
  onRefusal?: (refusal: Refusal, request: FastifyRequest) => void;
}

/** The OAuth error body of a refusal (RFC 6750 §3 uses the challenge; the body helps a human reading it). */
export function refusalBody(refusal: Refusal): Record<string, string> {
  return refusal.error ? { error: refusal.error, error_description: refusal.description } : { error: 'unauthorized', error_description: refusal.description };
}

export function sendRefusal(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return reply
    .code(refusal.status)
    .headers(refusal.headers)
    .header('cache-control', 'no-store')
    .send(refusal.status === 503 ? { error: 'temporarily_unavailable', error_description: refusal.description } : refusalBody(refusal));
}

async function plugin(app: FastifyInstance, options: GatehousePluginOptions): Promise<void> {
  const { resourceServer } = options;
  const document = JSON.stringify(resourceServer.metadata());
  app.decorateRequest('gatehouse', undefined);
  app.get(resourceServer.metadataPath, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*').type('application/json; charset=utf-8').send(document),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url === resourceServer.metadataPath) return;
    const result = await resourceServer.verifyRequest({ method: request.method, url: request.url, headers: request.headers });
    if (!result.ok) {
      options.onRefusal?.(result, request);
      return sendRefusal(reply, result);
    }
    request.gatehouse = result.identity;
  });
}

// What fastify-plugin does: the hook applies to the routes of the context that registers the plugin.
Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: '@gatehouse/resource-server' });

export const gatehouseResourceServer = plugin;
export default plugin;
