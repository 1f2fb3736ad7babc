// The /v1 face: its versioned resources behind bearer authentication, and its RFC 9728 protected-resource
// metadata. Mounted by src/resource-api.ts next to /admin/v1, under one OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { apiVersion, type ApiServices } from './version.js';
import { challengeWithResourceMetadata, protectedResourceMetadataRoutes } from './protected-resource-metadata.js';

export async function v1Api(app: FastifyInstance, { services }: { services: ApiServices }): Promise<void> {
  protectedResourceMetadataRoutes(app, services.config);
  await app.register(
    async (v1) => {
      challengeWithResourceMetadata(v1, services.config);
      await v1.register(apiVersion, { version: 'v1', services });
    },
    { prefix: '/v1' },
  );
}

export type { ApiServices };
