// Passkeys in Chromium: removing the last passkey needs a fresh sign-in (passkeys-suite.ts).
import { passkeySuite } from './passkeys-suite.js';

passkeySuite('removal');
