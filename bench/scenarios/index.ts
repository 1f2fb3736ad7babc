// Every scenario, in the order `npm run bench` runs them.
import type { Scenario } from './scenario.js';
import { clientCredentials } from './client-credentials.js';
import { codeExchange, refreshRotation } from './exchanges.js';
import { usersMe } from './users-me.js';
import { payments } from './payments.js';
import { ordersCursor } from './orders-cursor.js';
import { loginFlow } from './login-flow.js';
import { memory } from './memory.js';
import { protect } from './protect.js';

export const scenarios: Scenario[] = [clientCredentials, refreshRotation, codeExchange, loginFlow, usersMe, payments, ordersCursor, protect, memory];
