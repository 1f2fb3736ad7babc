// Every scenario, in the order `npm run bench` runs them.
import type { Scenario } from './scenario.js';
import { clientCredentials } from './client-credentials.js';
import { codeExchange, refreshRotation } from './exchanges.js';
import { usersMe } from './users-me.js';
import { payments } from './payments.js';

export const scenarios: Scenario[] = [clientCredentials, refreshRotation, codeExchange, usersMe, payments];
