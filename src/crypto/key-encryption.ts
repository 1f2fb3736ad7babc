// Seals private signing keys at rest with AES-256-GCM under the key-encryption key (KEK).
// The kid is bound as additional authenticated data, so a sealed key cannot be swapped onto another row.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareDataDir } from '../startup/data-dir.js';

const VERSION = 'v1';

export interface KeyEncryption {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

export function keyEncryption(kek: Buffer): KeyEncryption {
  if (kek.length !== 32) throw new Error('the key-encryption key must be 32 bytes');
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', kek, iv);
      cipher.setAAD(Buffer.from(aad));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed, aad) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || !body || !tag) throw new Error('unrecognised sealed key format');
      const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The KEK from configuration, or (outside production) one generated once into DATA_DIR so that a
 * development install needs no setup. config.ts already refuses production without a configured KEK.
 */
export function resolveKeyEncryptionKey(config: { KEY_ENCRYPTION_KEY?: string | undefined; DATA_DIR: string }): Buffer {
  if (config.KEY_ENCRYPTION_KEY) return Buffer.from(config.KEY_ENCRYPTION_KEY, 'base64url');
  // The generated key is only as private as the directory it lives in.
  prepareDataDir(config.DATA_DIR);
  const file = join(config.DATA_DIR, 'key-encryption-key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  const kek = randomBytes(32);
  writeFileSync(file, `${kek.toString('base64url')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return kek;
}
