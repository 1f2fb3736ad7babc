// Passkeys in Chromium: registration, passwordless sign-in, the second factor and removal (passkeys-suite.ts).
import { passkeySuite } from './passkeys-suite.js';

passkeySuite('flows');
