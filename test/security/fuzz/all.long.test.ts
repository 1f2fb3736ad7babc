// The same fuzz properties with 20× the runs (npm run test:long); FUZZ_SEED and FUZZ_RUNS_SCALE still apply.
import { apiFuzzSuite } from './api-suite.js';
import { oauthFuzzSuite } from './oauth-suite.js';
import { pagesFuzzSuite } from './pages-suite.js';

oauthFuzzSuite(true);
apiFuzzSuite(true);
pagesFuzzSuite(true);
