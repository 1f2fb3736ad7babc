// What the administration services are built from (index.ts builds each service's deps from it): the part of
// the shared core both the CLI and /admin/v1 hand them. Declared here and satisfied by the composition root
// (src/core.ts builds it for the CLI, src/services.ts extends it for the server).
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { KeyService } from '../crypto/keys.js';
import type { OutboundPolicy } from '../http/outbound/outbound-policy.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { ClientLookup } from '../oauth/clients/client-cache.js';
import type { ResourceRegistry } from '../oauth/resources/registry.js';
import type { OutboxWriter } from '../outbox/writer.js';
import type { Store } from '../storage/store.js';

export interface AdminCore {
  readonly config: Config;
  readonly clock: Clock;
  /** The repositories and the one transaction opener (src/storage/store.ts). */
  readonly store: Store;
  readonly keys: KeyService;
  readonly rateLimits: RateLimits;
  /** Client registrations as read by /token (a change makes this instance forget the client). */
  readonly clients: ClientLookup;
  /** Where discovery and jwks_uri fetches may go; strict outside tests. */
  readonly outbound: OutboundPolicy;
  /** Registered resource servers and their scopes. */
  readonly resources: ResourceRegistry;
  /** The audit log's sink: every change is recorded. */
  readonly audit: AuditSink;
  /** Writes outgoing messages (invitations) in the transaction of their cause (docs/outbox.md). */
  readonly outbox: OutboxWriter;
  /** Seals and opens webhook signing secrets (docs/webhooks.md, docs/secrets-storage.md). */
  readonly keyEncryptionKey: Buffer;
}
