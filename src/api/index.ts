// The resource API face: versioned resources under /v1 behind bearer authentication, plus the
// OpenAPI document (/openapi.json), its human rendering (/docs) and the problem-type pages (/problems).
import { constants as zlib } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import fp from 'fastify-plugin';
import { ERROR_EDGE_PLUGIN, JOBS_PLUGIN } from '../face-dependencies.js';
import type { ResourceServerAuth } from './auth/index.js';
import { apiVersion, type ApiServices } from './version.js';
import { registerOpenApi } from './docs/openapi.js';
import { docsRoutes } from './docs/docs-page.js';
import { problemPages } from './docs/problem-pages.js';
import { adminApi, ADMIN_PREFIX, type AdminServices } from '../admin/index.js';
import { challengeWithResourceMetadata, protectedResourceMetadataRoutes } from './protected-resource-metadata.js';

async function api(app: FastifyInstance, { services }: { services: ApiServices & AdminServices }): Promise<void> {
  // Accept-Encoding (RFC 9110 §12.5.3); a moderate brotli quality keeps compression cheap per request.
  await app.register(compress, { encodings: ['br', 'gzip'], brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } } });
  await registerOpenApi(app, services.config);
  protectedResourceMetadataRoutes(app, services.config);
  await app.register(
    async (v1) => {
      challengeWithResourceMetadata(v1, services.config);
      await v1.register(apiVersion, { version: 'v1', services });
    },
    { prefix: '/v1' },
  );
  // The admin API: a tagged part of the same OpenAPI document, its own audience (docs/admin-api.md).
  await app.register(adminApi, { prefix: ADMIN_PREFIX, services });
  docsRoutes(app);
  problemPages(app);
}

export const resourceApi = fp(api, { name: 'gatehouse-api', encapsulate: true, dependencies: [ERROR_EDGE_PLUGIN, JOBS_PLUGIN] });

export type { ResourceServerAuth };
