// What a route declares about itself, in its `config` (docs/design.md, "Route facts"):
//   face  — how its errors are rendered: 'problem' (RFC 9457, the default), 'oauth' (RFC 6749 5.2 JSON),
//           'page' (an HTML page, where a redirect would be unsafe)
//   limit — the per-address budget an unauthenticated caller draws on before the body is read
//           (src/http/anonymous-limit.ts, docs/rate-limits.md); absent: none
// The error edge and the anonymous limiter read these facts; no other module lists paths. Answers given
// before any route is chosen (a malformed URL, 405) take the face of the routes the path belongs to.
import type { RouteOptions } from 'fastify';
import type { LimitName } from './rate-limit.js';

export type Face = 'problem' | 'oauth' | 'page';
export type AnonymousBudget = Extract<LimitName, 'anonymous' | 'pages'>;

declare module 'fastify' {
  interface FastifyContextConfig {
    face?: Face;
    limit?: AnonymousBudget;
  }
}

interface KnownRoute {
  pattern: RegExp;
  method: string;
  face: Face;
  /** The literal first path segment ('token' for /token, 'register' for /register/:client_id). */
  segment: string;
}

export interface RouteFacts {
  /** Called for every route as it is registered (an onRoute hook). */
  add(route: Pick<RouteOptions, 'url' | 'method' | 'config'>): void;
  /** The methods and face of the routes whose pattern matches `path`, for a 405. */
  matching(path: string): { methods: string[]; face: Face } | undefined;
  /** The face of a request no route was chosen for: the routes' at this path, else at its first segment, else 'problem'. */
  faceOfPath(url: string): Face;
}

const escapeSegment = (segment: string) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

const firstSegment = (path: string): string => path.split('/')[1] ?? '';

/** The one face all of these routes share; mixed faces (e.g. a CORS preflight beside a page) settle nothing. */
function sharedFace(routes: readonly KnownRoute[]): Face | undefined {
  const faces = new Set(routes.map((r) => r.face));
  return faces.size === 1 ? [...faces][0] : undefined;
}

export function routeFacts(): RouteFacts {
  const routes: KnownRoute[] = [];
  const pathOf = (url: string) => url.split('?')[0] ?? '/';
  return {
    add(route) {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const pattern = new RegExp(`^${route.url.split('/').map(escapeSegment).join('/')}/?$`);
      const face = (route.config as { face?: Face } | undefined)?.face ?? 'problem';
      const segment = firstSegment(route.url);
      for (const method of methods) routes.push({ pattern, method, face, segment });
    },
    matching(path) {
      const found = routes.filter((r) => r.pattern.test(path));
      if (found.length === 0) return undefined;
      return { methods: [...new Set(found.map((r) => r.method))].sort(), face: found[0]!.face };
    },
    faceOfPath(url) {
      const path = pathOf(url);
      const exact = sharedFace(routes.filter((r) => r.pattern.test(path)));
      if (exact) return exact;
      const segment = firstSegment(path);
      if (segment === '') return 'problem';
      return sharedFace(routes.filter((r) => r.segment === segment)) ?? 'problem';
    },
  };
}
