// The authorization server face: /authorize, /token, discovery, JWKS, /userinfo, /revoke, /introspect, /register.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function authorizationServer(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  void app;
  void core;
}
