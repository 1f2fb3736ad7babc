// The shared services both faces use, built once per app from configuration and the database.
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Database, Db } from './storage/database.js';
import { keyEncryption, resolveKeyEncryptionKey } from './crypto/key-encryption.js';
import { keyService, type KeyService } from './crypto/keys.js';
import { signingKeysRepository } from './storage/signing-keys-repository.js';

export interface Core {
  readonly config: Config;
  readonly clock: Clock;
  readonly database: Database;
  readonly db: Db;
  readonly keys: KeyService;
}

export function createCore({ config, clock, database }: { config: Config; clock: Clock; database: Database }): Core {
  const keys = keyService({
    repository: signingKeysRepository(database.db),
    encryption: keyEncryption(resolveKeyEncryptionKey(config)),
    clock,
    publishDelaySeconds: config.JWKS_CACHE_TTL,
    maxTokenLifetimeSeconds: Math.max(config.ACCESS_TOKEN_TTL, config.ID_TOKEN_TTL),
    clockSkewSeconds: config.CLOCK_SKEW,
  });
  return { config, clock, database, db: database.db, keys };
}
