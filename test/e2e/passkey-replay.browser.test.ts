// Passkeys in Chromium: a replayed assertion (same challenge) is refused (passkeys-suite.ts).
import { passkeySuite } from './passkeys-suite.js';

passkeySuite('replay');
