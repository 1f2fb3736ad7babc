// Bounded, seeded fuzzing of every /v1 route (see api-suite.ts).
import { apiFuzzSuite } from './api-suite.js';

apiFuzzSuite(false);
