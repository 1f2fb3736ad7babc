// Passkeys in Chromium: registration on /account, passwordless sign-in to an application, the passkey as second factor (passkeys-suite.ts).
import { passkeySuite } from './passkeys-suite.js';

passkeySuite('second-factor');
