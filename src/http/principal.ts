// Who a resource-API request acts for, as established by bearer-token validation: the resource-server kit's
// Identity (packages/resource-server-kit/src/identity.ts). Scope says what kind of thing the client may do;
// object-level access (own objects only for user tokens) is decided separately by each resource.
import type { Identity } from '@gatehouse/resource-server';

export type Principal = Identity;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
