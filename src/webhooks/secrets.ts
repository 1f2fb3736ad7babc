// Webhook signing secrets (Standard Webhooks): `whsec_` + the base64 of 32 random bytes (the spec asks for
// 24 to 64). They are sealed at rest under the key-encryption key with the endpoint id as additional data,
// so a sealed secret cannot be moved onto another endpoint (docs/secrets-storage.md), and only the outbox's
// webhook channel opens them.
import { randomBytes } from 'node:crypto';
import type { KeyEncryption } from '../crypto/key-encryption.js';

export const SECRET_PREFIX = 'whsec_';

export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** `whsec_` and the standard base64 of 24 to 64 bytes. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(SECRET_PREFIX)) return false;
  const body = value.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) return false;
  const bytes = Buffer.from(body, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

const aad = (endpointId: string) => `webhook:${endpointId}`;

export const sealWebhookSecret = (encryption: KeyEncryption, endpointId: string, secret: string): string => encryption.seal(secret, aad(endpointId));
export const openWebhookSecret = (encryption: KeyEncryption, endpointId: string, sealed: string): string => encryption.open(sealed, aad(endpointId));
