// OPTIONS on every resource of a version (RFC 9110 §9.3.7): 204 with `Allow` listing the methods its
// routes declare. It needs no token: it reveals only the method table, never whether an object exists.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';

/**
 * Call before the resources are registered; call the returned function after the last one, which adds
 * one OPTIONS route per resource URL (so unknown URLs stay 404 and the 405 `Allow` lists OPTIONS too).
 */
export function collectOptionsRoutes(app: FastifyInstance): () => void {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>(['OPTIONS']);
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) methods.add(m);
    if (methods.has('GET')) methods.add('HEAD');
    methodsByUrl.set(route.url, methods);
  });
  return () => {
    for (const [url, methods] of [...methodsByUrl]) {
      if (methods.has('OPTIONS') && methods.size === 1) continue;
      const allow = [...methods].sort().join(', ');
      const path = app.prefix && url.startsWith(app.prefix) ? url.slice(app.prefix.length) : url;
      app.options(path, { config: { anonymous: true }, schema: { hide: true } }, async (_request, reply) =>
        reply.code(204).header('allow', allow).send(),
      );
    }
  };
}
