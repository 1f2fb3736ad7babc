// The resource API face: versioned resources under /v1 behind bearer authentication, plus the
// OpenAPI document (/openapi.json), its human rendering (/docs) and the problem-type pages (/problems).
import { constants as zlib } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import type { Core } from '../core.js';
import { resourceServerAuth, type ResourceServerAuth } from './auth/index.js';
import { apiVersion } from './version.js';
import { registerOpenApi } from './docs/openapi.js';
import { docsRoutes } from './docs/docs-page.js';
import { problemPages } from './docs/problem-pages.js';
import { adminApi, ADMIN_PREFIX } from '../admin/index.js';

export async function resourceApi(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  // Accept-Encoding (RFC 9110 §12.5.3); a moderate brotli quality keeps compression cheap per request.
  await app.register(compress, { encodings: ['br', 'gzip'], brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } } });
  await registerOpenApi(app, core.config);
  const auth = resourceServerAuth(core, { jwksUrl: core.config.JWKS_URL });
  await app.register(apiVersion, { prefix: '/v1', version: 'v1', core, auth });
  // The admin API: a tagged part of the same OpenAPI document, its own audience (docs/admin-api.md).
  await app.register(adminApi, { prefix: ADMIN_PREFIX, core });
  docsRoutes(app);
  problemPages(app);
}

export type { ResourceServerAuth };
