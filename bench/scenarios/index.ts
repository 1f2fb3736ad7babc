// Every scenario, in the order `npm run bench` runs them.
import type { Scenario } from './scenario.js';
import { clientCredentials } from './client-credentials.js';

export const scenarios: Scenario[] = [clientCredentials];
