// Bounded, seeded fuzzing of /authorize, /token, /userinfo, /revoke and /introspect (see oauth-suite.ts).
import { oauthFuzzSuite } from './oauth-suite.js';

oauthFuzzSuite(false);
