// The resource API's side of RFC 9449 §7 (src/tokens/dpop/possession.ts): a failure is a Problem Details
// 401 with a DPoP challenge.
import type { FastifyRequest } from 'fastify';
import { possessionFailure } from '../../tokens/dpop/possession.js';
import type { DpopDeps } from '../../tokens/dpop/proof.js';
import type { Principal } from '../../http/principal.js';
import type { PresentedToken } from './bearer-token.js';
import { dpopError } from './challenges.js';

export type PossessionCheck = (request: FastifyRequest, presented: PresentedToken, principal: Principal) => Promise<void>;

/** `publicBaseUrl`: what clients call this service by (ISSUER); the proof's htu is that plus the path. */
export function proofOfPossession(deps: DpopDeps & { publicBaseUrl: string; requireNonce: boolean }): PossessionCheck {
  return async (request, { scheme, token }, principal) => {
    const url = `${deps.publicBaseUrl}${request.url.split('?')[0]}`;
    const failure = await possessionFailure({ scheme, token, method: request.method, url, dpopHeader: request.headers.dpop }, principal.boundKey, deps);
    if (failure) throw dpopError(failure);
  };
}
