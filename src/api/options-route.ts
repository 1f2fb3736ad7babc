// OPTIONS on any resource of a version (RFC 9110 §9.3.7): 204 with `Allow` listing the methods its
// routes declare. It needs no token: it reveals only the method table, never whether an object exists.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';

interface RoutePattern {
  pattern: RegExp;
  methods: Set<string>;
}

const patternOf = (url: string) =>
  new RegExp(
    '^' +
      url
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/') +
      '$',
  );

/** Call first in a version plugin: it watches the routes registered after it. */
export function installOptionsRoute(app: FastifyInstance): void {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    if (route.url.endsWith('*')) return;
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(m);
    routes.set(route.url, entry);
  });

  app.options('/*', { config: { anonymous: true }, schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = new Set<string>(['OPTIONS']);
    for (const r of routes.values()) if (r.pattern.test(path)) r.methods.forEach((m) => methods.add(m));
    if (methods.size === 1) return reply.callNotFound();
    if (methods.has('GET')) methods.add('HEAD');
    return reply.code(204).header('allow', [...methods].sort().join(', ')).send();
  });
}
