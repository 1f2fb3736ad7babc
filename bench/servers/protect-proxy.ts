// `gatehouse protect` (src/protect/proxy.ts, the same code the CLI starts) in a child of its own, for the protect
// scenario; its flags come in PROTECT_ARGS (JSON), its credentials in GATEHOUSE_CLIENT_ID/SECRET.
import { pino } from 'pino';
import { reportStartFailure, serveRpc } from '../lib/child-rpc.js';
import { parseProtectArgs } from '../../src/protect/options.js';
import { startProtect } from '../../src/protect/proxy.js';

try {
  const options = parseProtectArgs(JSON.parse(process.env.PROTECT_ARGS ?? '[]') as string[], process.env);
  const proxy = await startProtect(options, pino({ level: 'warn' }));
  serveRpc(Number(new URL(proxy.url).port), {}, () => proxy.close());
} catch (error) {
  reportStartFailure(error);
}
