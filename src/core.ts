// The shared services both faces use, built once per app from configuration and the database.
import type { AdminCore } from './admin-services/deps.js';
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Database, Db } from './storage/driver/database.js';
import { keyEncryption, resolveKeyEncryptionKey } from './crypto/key-encryption.js';
import { keyService } from './crypto/keys.js';
import { createStore } from './storage/store.js';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { createRateLimits } from './http/rate-limit.js';
import { cachedClients, type ClientLookup } from './oauth/clients/client-cache.js';
import { metadataDocumentClients } from './oauth/clients/metadata-document.js';
import { looksLikeMetadataDocumentUrl } from './oauth/clients/metadata-document-url.js';
import { openClientUses } from './oauth/clients/open-client-use.js';
import { originIndex, type OriginIndex } from './oauth/cors/origin-index.js';
import { STRICT_OUTBOUND, type OutboundPolicy } from './http/outbound/outbound-policy.js';
import { remoteKeySets, type RemoteKeySets } from './oauth/client-auth/remote-key-sets.js';
import { auditSink, databaseSubscriber } from './audit/audit-sink.js';
import { revocationFeed, type RevocationFeed } from './storage/repositories/revocation-feed.js';
import { resourceRegistry } from './oauth/resources/registry.js';
import { outboxWriter } from './outbox/writer.js';
import { webhookSubscriber } from './webhooks/webhook-subscriber.js';
import { webhookSubscriptions } from './storage/repositories/webhook-subscriptions.js';

/**
 * The shared part of an app, built once: what the CLI runs its commands against (the administration services'
 * core, declared by src/admin-services/deps.ts) and what the server's services are built from.
 */
export interface Core extends AdminCore {
  readonly database: Database;
  /** The pool itself, for the composition root and tests; everything else reads and writes through `store`. */
  readonly db: Db;
  /** Every origin some client may call the token endpoints from (CORS preflights), same freshness as `clients`. */
  readonly corsOrigins: OriginIndex;
  /** Key sets of clients registered with a jwks_uri (bounded, per app). */
  readonly remoteKeySets: RemoteKeySets;
  /** The key that seals private keys and TOTP secrets and keys cursors and DPoP nonces (docs/secrets-storage.md). */
  readonly keyEncryptionKey: Buffer;
  /** Revoked access tokens held in memory, kept current by the database's announcements (per app). */
  readonly revocationFeed: RevocationFeed;
  /** Shared counters for several instances (REDIS_URL); absent on a single instance. */
  readonly redis?: Redis;
}

export interface CoreOptions {
  config: Config;
  clock: Clock;
  database: Database;
  /** Where operational warnings go (Redis down, fallback engaged). */
  warn?: (message: string, error?: unknown) => void;
  /** Outbound policy; tests pass one that reaches their loopback servers. Default: STRICT_OUTBOUND. */
  outbound?: OutboundPolicy;
}

export function createCore({ config, clock, database, warn = () => {}, outbound = STRICT_OUTBOUND }: CoreOptions): Core {
  // Resolved once: without KEY_ENCRYPTION_KEY it is read from (or first written to) DATA_DIR.
  const keyEncryptionKey = resolveKeyEncryptionKey(config);
  // The one store over the pool: every repository above storage comes from it (docs/design.md, "Unit of work").
  const store = createStore(database.db, clock);
  const keys = keyService({
    repository: store.signingKeys,
    encryption: keyEncryption(keyEncryptionKey),
    clock,
    publishDelaySeconds: config.JWKS_CACHE_TTL,
    maxTokenLifetimeSeconds: Math.max(config.ACCESS_TOKEN_TTL, config.ID_TOKEN_TTL),
    clockSkewSeconds: config.CLOCK_SKEW,
    refreshIntervalMs: config.KEY_REFRESH_INTERVAL * 1000,
  });
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL, warn) : undefined;
  const rateLimits = createRateLimits(config, {
    redis,
    onStoreError: (error) => warn('rate-limit store failed; request allowed', error),
  });
  const repository = store.clients;
  const cached = cachedClients(repository, clock, config.CLIENT_CACHE_TTL);
  const corsOrigins = originIndex(repository, clock, config.CLIENT_CACHE_TTL);
  const resources = resourceRegistry(store.resourceServers, clock, config.CLIENT_CACHE_TTL);
  const outbox = outboxWriter({ encryption: keyEncryption(keyEncryptionKey), clock });
  // Audit events that stand for webhook events enqueue them in the same transaction (docs/webhooks.md).
  const audit = auditSink({
    clock,
    subscribers: [databaseSubscriber(store), webhookSubscriber(store, outbox, webhookSubscriptions(database.db, database.notifications))],
  });
  const documents = metadataDocumentClients({
    config,
    clock,
    outbound,
    store,
    audit,
    resources,
    onRefusal: (url, refusal) => warn(`client metadata document refused (${refusal.code}): ${url}: ${refusal.message}`),
  });
  const uses = openClientUses(store);
  const cimd = config.CIMD === 'on';
  // Whatever makes this instance forget a client also makes it re-read the origins.
  const clients: ClientLookup = {
    async find(id) {
      const registered = await cached.find(id);
      // A row read from a metadata document counts only while CIMD is on, and then the document decides;
      // a client an operator registered under an https id stays what the operator made it.
      if (registered?.provenance !== 'metadata_document' && (registered || !cimd || !looksLikeMetadataDocumentUrl(id))) return registered;
      return cimd && looksLikeMetadataDocumentUrl(id) ? documents.resolve(id) : undefined;
    },
    forget(id) {
      cached.forget(id);
      documents.forget(id);
      corsOrigins.forget();
    },
    refusal: (id) => (cimd ? documents.refusal(id) : undefined),
    noteUse: (client) => uses.note(client),
  };
  const remoteKeys = remoteKeySets(config, outbound);
  const feed = revocationFeed({ repository: store.revocations, notifications: database.notifications, clock, warn });
  return {
    config,
    clock,
    database,
    db: database.db,
    store,
    keys,
    rateLimits,
    clients,
    corsOrigins,
    outbound,
    remoteKeySets: remoteKeys,
    keyEncryptionKey,
    revocationFeed: feed,
    resources,
    audit,
    outbox,
    ...(redis ? { redis } : {}),
  };
}

function connectRedis(url: string, warn: NonNullable<CoreOptions['warn']>): Redis {
  // Loaded only when REDIS_URL is set: ioredis adds ~10 MB to the resident memory of every process that imports
  // it, and the embedded default's footprint target (docs/embedded-database.md) has no room for an unused client.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  // No offline queue: while Redis is unreachable, commands fail at once and the in-memory insurance
  // limiter answers, instead of requests waiting on a reconnecting client.
  const redis = new RedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  let reported = false;
  redis.on('error', (error) => {
    if (!reported) warn('Redis unreachable: rate limits fall back to per-instance memory counters', error);
    reported = true;
  });
  redis.on('ready', () => {
    if (reported) warn('Redis reachable again: rate limits shared across instances');
    reported = false;
  });
  return redis;
}
