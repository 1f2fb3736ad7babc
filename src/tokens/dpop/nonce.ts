// Server-provided DPoP nonces (RFC 9449 §8, §9): the resource-server kit's (packages/resource-server-kit/src/dpop/nonce.ts),
// keyed here by the key-encryption key so that every instance of a deployment accepts every other's (docs/security/dpop.md).
export { dpopNonces, DPOP_NONCE_WINDOW_SECONDS, type DpopNonces } from '@gatehouse/resource-server';
