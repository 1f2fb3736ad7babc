// Full browser-less flows per second: GET /authorize → login page → POST username/password (argon2id with
// the OWASP parameters) → consent page (prompt=consent forces it every time) → POST decision=allow →
// redirect with the code → POST /token. Reported per core: completed flows per second of server CPU time.
import { randomBytes } from 'node:crypto';
import { basicAuth, postForm } from '../lib/http.js';
import { Browser, parsePostForm } from '../lib/browserless.js';
import { measure } from '../lib/measure.js';
import { atLeast } from '../lib/checks.js';
import { GATEHOUSE_DB } from '../lib/environment.js';
import type { LoadResult } from '../lib/load.js';
import type { ChildServer } from '../lib/child.js';
import type { Scenario } from './scenario.js';
import { gatehouseClient, requireCapability, type ClientCredentials } from './subjects.js';
import { CHALLENGE, REDIRECT_URI, VERIFIER } from './user-grant.js';

const PASSWORD = 'bench-password-1';
/** Flows in flight at once: enough to keep both cores and the argon2 thread pool busy. */
const CONCURRENCY = 8;

async function oneFlow(server: ChildServer, client: ClientCredentials, username: string): Promise<void> {
  const browser = new Browser(server.url);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid users:read',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    prompt: 'consent',
  });
  let response = await browser.request(`/authorize?${query}`);
  for (let step = 0; step < 10; step++) {
    if (response.status >= 300 && response.status < 400) {
      const location = new URL(response.headers.get('location') ?? '', server.url);
      if (location.href.startsWith(REDIRECT_URI)) {
        const code = location.searchParams.get('code');
        if (!code) throw new Error(`redirected to the client without a code: ${location.search}`);
        const tokens = await postForm(
          `${server.url}/token`,
          { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER },
          { authorization: basicAuth(client.id, client.secret) },
        );
        if (typeof tokens.access_token !== 'string') throw new Error('no access token at the end of the flow');
        return;
      }
      response = await browser.request(location.pathname + location.search);
      continue;
    }
    const html = await response.text();
    const form = response.status === 200 ? parsePostForm(html) : undefined;
    if (!form) throw new Error(`unexpected page ${response.status}: ${html.slice(0, 200)}`);
    const fields = form.fields.has('password') ? { ...form.hidden, username, password: PASSWORD } : { ...form.hidden, decision: 'allow' };
    response = await browser.request(form.action || response.url, { method: 'POST', form: fields });
  }
  throw new Error('the flow did not reach the client within 10 steps');
}

async function drive(server: ChildServer, client: ClientCredentials, username: string, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        await oneFlow(server, client, username);
        latencies.push(performance.now() - t);
      } catch (error) {
        errors++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (firstError) console.error(`login flow error: ${(firstError as Error).message}`);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? Number.NaN;
  return {
    rps: latencies.length / elapsed,
    p50: pct(0.5),
    p99: pct(0.99),
    requests: latencies.length + errors,
    errors,
    seconds: elapsed,
    statusCodes: { flows: latencies.length },
  };
}

export const loginFlow: Scenario = {
  name: 'login-flow',
  title: 'browser-less login + consent + code + token flows (argon2id m=19 MiB t=2 p=1), PostgreSQL',
  async run(context) {
    const server = await context.env.gatehouse('postgres');
    await requireCapability(server, 'token', 'POST /token (issue 3)');
    await requireCapability(server, 'authorize', 'GET /authorize with login and consent pages (issue 4)');
    const username = `bench-login-${randomBytes(4).toString('hex')}`;
    await server.call('command', { name: 'users create', args: ['--username', username, '--password', PASSWORD] });
    const client = await gatehouseClient(server, {
      name: 'bench login',
      grantTypes: ['authorization_code'],
      scope: 'openid users:read',
      redirectUri: REDIRECT_URI,
    });
    await oneFlow(server, client, username);

    const summaries = await measure(
      [
        {
          key: 'flows',
          label: `Gatehouse flows (${CONCURRENCY} at once)`,
          role: 'gatehouse',
          server,
          statementsDatabase: GATEHOUSE_DB,
          load: async (run) => ({ drive: () => drive(server, client, username, run.seconds) }),
        },
      ],
      context.settings,
      context.env,
      context.log,
    );
    const flows = summaries[0]!;
    const perCore = flows.median.rps / Math.max(flows.median.cpuPercent / 100, 0.01);
    return {
      subjects: summaries,
      unavailable: [],
      checks: [atLeast('flows per second per core (flows ÷ server CPU-seconds)', perCore, 37, 'flows/s/core')],
      figures: [{ label: 'flows per second (wall clock)', value: flows.median.rps, unit: 'flows/s' }],
      notes: [
        'req/s, p50 and p99 in this table are flows (5-6 HTTP requests each), not requests; sql/req is per flow',
        'server CPU includes argon2id on the libuv thread pool',
      ],
    };
  },
};
