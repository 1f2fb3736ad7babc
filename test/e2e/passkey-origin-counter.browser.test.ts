// Passkeys in Chromium: another origin, a cloned authenticator's counter, CSRF on the ceremony endpoints (passkeys-suite.ts).
import { passkeySuite } from './passkeys-suite.js';

passkeySuite('origin-counter-csrf');
