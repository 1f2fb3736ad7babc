// API versions live in the URL path (/v1). A version listed in API_DEPRECATED_VERSIONS announces it on
// every response: `Deprecation: @<unix seconds>` (RFC 9745 §2.1, a structured-field Date), `Sunset:
// <IMF-fixdate>` (RFC 8594 §3) and `Link: <docs>; rel="deprecation"` (RFC 9745 §3); after its sunset it
// answers 410 Gone. Versions not listed send none of these headers.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ProblemError } from './errors.js';

export type DeprecatedVersion = Config['API_DEPRECATED_VERSIONS'][number];

export function deprecationHeaders(entry: DeprecatedVersion, docsUrl: string): Record<string, string> {
  const links = [`<${docsUrl}>; rel="deprecation"; type="text/html"`];
  if (entry.sunsetAt) links.push(`<${docsUrl}>; rel="sunset"; type="text/html"`);
  return {
    deprecation: `@${Math.floor(entry.deprecatedAt.getTime() / 1000)}`,
    ...(entry.sunsetAt ? { sunset: entry.sunsetAt.toUTCString() } : {}),
    link: links.join(', '),
  };
}

/** onRequest hook for one version's plugin; registered before authentication, so a gone version is 410 for all. */
export function installVersionPolicy(
  app: FastifyInstance,
  { version, config, clock }: { version: string; config: Pick<Config, 'API_DEPRECATED_VERSIONS' | 'ISSUER'>; clock: Clock },
): void {
  const entry = config.API_DEPRECATED_VERSIONS.find((v) => v.version === version);
  if (!entry) return;
  const headers = deprecationHeaders(entry, `${config.ISSUER}/docs`);
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
    if (entry.sunsetAt && clock.now() >= entry.sunsetAt.getTime()) {
      throw new ProblemError('gone', `API ${version} was retired on ${entry.sunsetAt.toUTCString()}; see ${config.ISSUER}/docs.`, { headers });
    }
  });
}
