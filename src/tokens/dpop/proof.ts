// DPoP proof validation (RFC 9449 4.3) is the resource-server kit's (packages/resource-server-kit/src/dpop/proof.ts);
// Gatehouse gives it its stores: spent proofs in the database (used_dpop_proofs, shared by every instance, the
// insert is the atomic replay check) and nonces keyed by the key-encryption key.
import type { DpopDeps } from '@gatehouse/resource-server';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Store } from '../../storage/store.js';
import { dpopNonces } from './nonce.js';

export { DPOP_ALGS, DpopNonceError, DpopProofError, verifyDpopProof, type DpopDeps, type DpopRequest } from '@gatehouse/resource-server';

/** What every proof check of this app (token endpoint, resource API, /userinfo) works with. */
export const dpopDeps = (core: { clock: Clock; config: Config; store: Store; keyEncryptionKey: Buffer }): DpopDeps => ({
  clock: core.clock,
  clockSkewSeconds: core.config.CLOCK_SKEW,
  proofs: core.store.dpopProofs,
  nonces: dpopNonces(core.keyEncryptionKey, core.clock),
});
