// RFC 9728 documents of the registered resource servers and of /userinfo, served by the authorization server
// (docs/resource-servers.md, "Protected-resource metadata"); the URL rules are in
// src/resource-server/protected-resource-metadata.ts. Every registered identifier has one: on Gatehouse's own
// origin at its RFC 9728 3 address (/.well-known/oauth-protected-resource + its path), on another host as a copy
// at /protected-resource-metadata?resource=<identifier>. The /v1 document is the resource API's own
// (src/api/protected-resource-metadata.ts); its static route wins over the wildcard here. Each document is read
// from the registry snapshot, so it follows the registry within CLIENT_CACHE_TTL.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuthDeps } from '../deps.js';
import { OIDC_SCOPES, userinfoAudience } from '../../scopes.js';
import type { ResourceServer } from '../../storage/repositories/resource-servers-repository.js';
import {
  FOREIGN_METADATA_PATH,
  identifiersOfMetadataPath,
  protectedResourceMetadataDocument,
  protectedResourceMetadataUrl,
  sendMetadata,
  WELL_KNOWN_PROTECTED_RESOURCE,
} from '../../resource-server/protected-resource-metadata.js';

const serverDocument = (server: ResourceServer, issuer: string) =>
  protectedResourceMetadataDocument(
    { identifier: server.identifier, name: server.name, scopes: server.operatorOnly ? [] : server.scopes.map((s) => s.name) },
    issuer,
  );

/** The URL of /userinfo's document: the endpoint is a protected resource too (its audience, RFC 8707). */
export const userinfoMetadataUrl = (issuer: string): string => protectedResourceMetadataUrl(userinfoAudience(issuer), issuer);

export function protectedResourceMetadataEndpoints(app: FastifyInstance, services: Pick<OAuthDeps, 'config' | 'resources'>): void {
  const { ISSUER: issuer } = services.config;
  const userinfo = userinfoAudience(issuer);
  const origin = new URL(issuer).origin;
  const options = { config: { face: 'oauth' as const }, schema: { hide: true } };

  async function serve(reply: FastifyReply, candidates: readonly string[], sameOrigin: boolean): Promise<FastifyReply> {
    if (sameOrigin && candidates.includes(userinfo)) {
      return sendMetadata(
        reply,
        protectedResourceMetadataDocument({ identifier: userinfo, name: 'UserInfo', scopes: OIDC_SCOPES.filter((s) => s !== 'offline_access') }, issuer),
      );
    }
    const catalogue = await services.resources.catalogue();
    for (const identifier of candidates) {
      const server = catalogue.find(identifier);
      // Each document at one address only: its own origin's RFC 9728 3 URL, or the copy for another host.
      if (server && (new URL(server.identifier).origin === origin) === sameOrigin) return sendMetadata(reply, serverDocument(server, issuer));
    }
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ error: 'not_found', error_description: 'No protected-resource metadata is registered at this address.' }));
  }

  const wellKnown = (url: string) => url.slice(WELL_KNOWN_PROTECTED_RESOURCE.length);
  app.get(WELL_KNOWN_PROTECTED_RESOURCE, options, async (request, reply) => serve(reply, identifiersOfMetadataPath(wellKnown(request.url), issuer), true));
  app.get(`${WELL_KNOWN_PROTECTED_RESOURCE}/*`, options, async (request, reply) =>
    serve(reply, identifiersOfMetadataPath(wellKnown(request.url), issuer), true),
  );
  app.get(FOREIGN_METADATA_PATH, options, async (request, reply) => {
    const resource = (request.query as Record<string, unknown>).resource;
    return serve(reply, typeof resource === 'string' && resource.length <= 600 ? [resource] : [], false);
  });
}
