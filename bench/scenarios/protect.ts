// gatehouse protect's overhead: the same upstream (a bare node:http JSON answer) called directly and through the
// proxy with a bearer token (repeated: the kit's verified-token cache path, plus the in-memory revocation copy,
// the route's scope and forwarding with identity headers), in the same run. The ratio is the figure; Gatehouse
// itself only serves the JWKS, the registration and the revocation feed (polled every 500 ms) meanwhile.
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startChild, type ChildServer } from '../lib/child.js';
import { ratioAtLeast } from '../lib/checks.js';
import { measure } from '../lib/measure.js';
import type { Scenario, Subject } from './scenario.js';
import { requireCapability } from './subjects.js';

export const protect: Scenario = {
  name: 'protect',
  title: 'gatehouse protect: a bare upstream directly vs through the proxy with a bearer token',
  async run(context) {
    const gatehouse = await context.env.gatehouse('postgres');
    await requireCapability(gatehouse, 'token', 'POST /token');
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/`;
    const created = await gatehouse.call<{ client_id: string; client_secret: string }>('command', {
      name: 'resource-servers create',
      args: ['--identifier', resource, '--name', 'Bench notes', '--scope', 'bench:read=Read', '--route', 'GET /notes*=bench:read'],
    });
    const [token] = await gatehouse.call<string[]>('issueAccessTokens', {
      count: 1,
      input: { sub: 'bench-client', clientId: 'bench-client', scope: ['bench:read'], audience: resource },
    });
    const children: ChildServer[] = [];
    try {
      const upstream = await startChild('bare upstream (node:http)', new URL('../servers/protect-upstream.ts', import.meta.url), {
        env: { NODE_ENV: 'production' },
      });
      children.push(upstream);
      const proxy = await startChild('gatehouse protect', new URL('../servers/protect-proxy.ts', import.meta.url), {
        env: {
          NODE_ENV: 'production',
          GATEHOUSE_CLIENT_ID: created.client_id,
          GATEHOUSE_CLIENT_SECRET: created.client_secret,
          PROTECT_ARGS: JSON.stringify([
            '--resource',
            resource,
            '--upstream',
            upstream.url,
            '--issuer',
            gatehouse.url,
            '--listen',
            `127.0.0.1:${port}`,
            '--ops-listen',
            '127.0.0.1:0',
          ]),
        },
      });
      children.push(proxy);
      const probe = await fetch(`${proxy.url}/notes`, { headers: { authorization: `Bearer ${token}` } });
      if (probe.status !== 200 || !(await probe.text()).includes('Welcome')) throw new Error(`the proxy answered ${probe.status}`);
      const subjects: Subject[] = [
        {
          key: 'bare',
          label: 'bare upstream (node:http)',
          role: 'baseline',
          server: upstream,
          load: async () => ({ url: `${upstream.url}/notes`, expectStatus: 200 }),
        },
        {
          key: 'protect',
          label: 'through gatehouse protect',
          role: 'gatehouse',
          server: proxy,
          load: async () => ({ url: `${proxy.url}/notes`, headers: { authorization: `Bearer ${token}` }, expectStatus: 200 }),
        },
      ];
      const summaries = await measure(subjects, context.settings, context.env, context.log);
      const by = (key: string) => summaries.find((s) => s.key === key);
      const ratio = ratioAtLeast('through protect ÷ bare upstream, req/s', by('protect'), by('bare'), 0);
      const bare = by('bare');
      const through = by('protect');
      return {
        subjects: summaries,
        unavailable: [],
        checks: [],
        figures: [
          ...ratio.map((c) => ({ label: c.label, value: c.value, unit: c.unit })),
          ...(bare && through ? [{ label: 'added p50 latency', value: Math.round((through.median.p50 - bare.median.p50) * 100) / 100, unit: 'ms' }] : []),
        ],
        notes: ['one ES256 at+jwt token, repeated (the verified-token cache path); the proxy forwards over a keep-alive pool'],
      };
    } finally {
      for (const child of children.reverse()) await child.stop();
    }
  },
};
