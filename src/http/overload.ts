// Load shedding: under event-loop pressure or when too many requests already wait for a database
// connection, new requests get 503 + Retry-After at once instead of queuing without bound.
// /healthz keeps answering (the process is up); /readyz reports the database itself, so a burst of
// start-up work (module loading, key import) never makes a freshly started instance look unready.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import underPressure from '@fastify/under-pressure';
import type { Config } from '../config.js';
import type { Database } from '../storage/driver/database.js';
import { ProblemError } from './errors.js';

const RETRY_AFTER = '5';
// Four samples a second, so shedding starts (and stops) within a fraction of a second.
const SAMPLE_INTERVAL_MS = 250;

const overloaded = (detail: string) => new ProblemError('service-unavailable', detail, { headers: { 'retry-after': RETRY_AFTER } });

// (/metrics has a listener of its own, metrics-listener.ts, which this app's load does not shed.)
const exempt = (request: FastifyRequest) => request.url === '/healthz';
// /readyz needs the database, so a full connection queue sheds it too; event-loop pressure does not.
const exemptFromLoopPressure = (request: FastifyRequest) => exempt(request) || request.url === '/readyz';

export async function installOverloadProtection(
  app: FastifyInstance,
  config: Pick<Config, 'OVERLOAD_MAX_EVENT_LOOP_DELAY' | 'OVERLOAD_MAX_DB_WAITING'>,
  database: Pick<Database, 'waiting'>,
): Promise<void> {
  if (config.OVERLOAD_MAX_EVENT_LOOP_DELAY > 0) {
    // The delay histogram starts at registration, so its first samples measure start-up itself (module
    // loading, key import) — sometimes a whole blocked interval, which reads as an infinite delay. Until
    // two samples have been taken after the server listens, pressure is not acted on: a fresh instance
    // must not refuse its first requests for work it has already finished.
    let judgedFrom = Infinity;
    app.addHook('onListen', (done) => {
      judgedFrom = Date.now() + 2 * SAMPLE_INTERVAL_MS;
      done();
    });
    await app.register(underPressure, {
      maxEventLoopDelay: config.OVERLOAD_MAX_EVENT_LOOP_DELAY,
      sampleInterval: SAMPLE_INTERVAL_MS,
      retryAfter: Number(RETRY_AFTER),
      pressureHandler: async (request) => {
        if (Date.now() < judgedFrom || exemptFromLoopPressure(request)) return;
        throw overloaded('The server is overloaded.');
      },
    });
  }
  if (config.OVERLOAD_MAX_DB_WAITING > 0) {
    app.addHook('onRequest', (request, _reply, done) => {
      if (!exempt(request) && database.waiting() >= config.OVERLOAD_MAX_DB_WAITING) {
        done(overloaded('Too many requests are waiting for the database.'));
        return;
      }
      done();
    });
  }
}
