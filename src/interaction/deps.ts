// What the browser face's plugin needs (src/interaction/index.ts), declared here and satisfied by the
// composition root (src/services.ts); the login/consent flow itself takes `FlowDeps` (flow-deps.ts).
import type { Config } from '../config.js';
import type { KeyService } from '../crypto/keys.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { ClientLookup } from '../oauth/clients/client-cache.js';
import type { FlowDeps } from './flow-deps.js';
import type { BrowserSessions } from './session/browser-sessions.js';

export interface InteractionDeps {
  readonly config: Config;
  readonly keys: KeyService;
  readonly rateLimits: RateLimits;
  readonly clients: ClientLookup;
  readonly sessions: BrowserSessions;
  readonly flow: FlowDeps;
}
