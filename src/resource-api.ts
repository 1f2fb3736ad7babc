// The resource-server faces as one plugin: /v1 (src/api/) and /admin/v1 (src/admin/) share compression,
// one OpenAPI document (/openapi.json), its human rendering (/docs) and the problem-type pages (/problems).
// Like src/app.ts this module only composes: the two faces never import each other
// (test/architecture/import-direction.test.ts).
import { constants as zlib } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import fp from 'fastify-plugin';
import { ERROR_EDGE_PLUGIN, JOBS_PLUGIN } from './face-dependencies.js';
import { adminScopeDescriptions, API_SCOPES } from './scopes.js';
import { v1Api, type ApiServices } from './api/index.js';
import { adminApi, ADMIN_PREFIX } from './admin/index.js';
import type { AdminDeps } from './admin/deps.js';
import { registerOpenApi } from './resource-server/docs/openapi.js';
import { docsRoutes } from './resource-server/docs/docs-page.js';
import { problemPages } from './resource-server/docs/problem-pages.js';

async function resourceFaces(app: FastifyInstance, { services }: { services: ApiServices & AdminDeps }): Promise<void> {
  // Accept-Encoding (RFC 9110 §12.5.3); a moderate brotli quality keeps compression cheap per request.
  await app.register(compress, { encodings: ['br', 'gzip'], brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } } });
  await registerOpenApi(app, services.config, { ...API_SCOPES, ...adminScopeDescriptions });
  await app.register(v1Api, { services });
  // The admin API: a tagged part of the same OpenAPI document, its own audience (docs/admin-api.md).
  await app.register(adminApi, { prefix: ADMIN_PREFIX, services });
  docsRoutes(app);
  problemPages(app);
}

export const resourceApi = fp(resourceFaces, { name: 'gatehouse-api', encapsulate: true, dependencies: [ERROR_EDGE_PLUGIN, JOBS_PLUGIN] });
