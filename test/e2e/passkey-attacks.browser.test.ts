// Passkeys in Chromium from the attacker's side: challenge replay, another origin, a cloned counter, CSRF (passkeys-suite.ts).
import { passkeySuite } from './passkeys-suite.js';

passkeySuite('attacks');
