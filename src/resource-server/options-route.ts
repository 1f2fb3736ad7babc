// OPTIONS on every resource of a version (RFC 9110 §9.3.7): 204 with `Allow` listing the methods its
// routes declare. It needs no token: it reveals only the method table, never whether an object exists.
// A resource that takes PATCH advertises the patch formats it accepts (`Accept-Patch`, RFC 5789 §3.1) on its
// OPTIONS and GET answers, and on the 415 of a PATCH in another format, so a client can find the format.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';

/**
 * Call before the resources are registered; call the returned function after the last one, which adds
 * one OPTIONS route per resource URL (so unknown URLs stay 404 and the 405 `Allow` lists OPTIONS too).
 */
export function collectOptionsRoutes(app: FastifyInstance): () => void {
  const methodsByUrl = new Map<string, Set<string>>();
  const patchFormatsByUrl = new Map<string, string>();
  app.addHook('onRoute', (route) => {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>(['OPTIONS']);
    const added = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of added) methods.add(m);
    if (methods.has('GET')) methods.add('HEAD');
    methodsByUrl.set(route.url, methods);
    if (added.includes('PATCH')) patchFormatsByUrl.set(route.url, (route.config?.bodyMediaTypes ?? ['application/json']).join(', '));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const formats = patchFormatsByUrl.get(request.routeOptions.url ?? '');
    if (formats === undefined) return payload;
    const method = request.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || (method === 'PATCH' && reply.statusCode === 415))
      reply.header('accept-patch', formats);
    return payload;
  });
  return () => {
    for (const [url, methods] of [...methodsByUrl]) {
      if (methods.has('OPTIONS') && methods.size === 1) continue;
      const allow = [...methods].sort().join(', ');
      const path = app.prefix && url.startsWith(app.prefix) ? url.slice(app.prefix.length) : url;
      app.options(path, { config: { anonymous: true }, schema: { hide: true } }, async (_request, reply) => reply.code(204).header('allow', allow).send());
    }
  };
}
