// Bare Fastify baselines in their own process, each doing only the essential work of the Gatehouse route
// it is compared with:
//   POST /token      client_secret_basic check + one ES256 `at+jwt` signed with jose (client_credentials);
//   GET  /users/me   the users-me representation read from the same database, no authentication;
//   POST /rows       one-row insert in one transaction on the same PostgreSQL (vs POST /v1/payments).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import pg from 'pg';
import { SignJWT, generateKeyPair } from 'jose';
import { reportStartFailure, serveRpc } from '../lib/child-rpc.js';
import { safeEqual } from '../../src/crypto/random.js';
import { bareUsersMe } from './users-me.js';

export const BASELINE_CLIENT = { id: 'baseline-client', secret: 'baseline-client-secret-0123456789-abcdefghijklmnop' };

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  await app.register(formbody);
  const issuer = 'http://127.0.0.1';
  const { privateKey } = await generateKeyPair('ES256');
  const expected = `Basic ${Buffer.from(`${BASELINE_CLIENT.id}:${BASELINE_CLIENT.secret}`).toString('base64')}`;

  app.post('/token', async (request, reply) => {
    if (!safeEqual(request.headers.authorization ?? '', expected)) return reply.code(401).send({ error: 'invalid_client' });
    const iat = Math.floor(Date.now() / 1000);
    const scope = (request.body as { scope?: string }).scope ?? '';
    const token = await new SignJWT({ client_id: BASELINE_CLIENT.id, scope, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'baseline' })
      .setIssuer(issuer)
      .setSubject(BASELINE_CLIENT.id)
      .setAudience(`${issuer}/v1`)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(privateKey);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send({ access_token: token, token_type: 'Bearer', expires_in: 600, scope });
  });

  const pool = process.env.BASELINE_DATABASE_URL
    ? new pg.Pool({ connectionString: process.env.BASELINE_DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) })
    : undefined;
  if (pool) {
    await pool.query(`create table if not exists bench_rows (
      id text primary key default gen_random_uuid()::text,
      amount_minor bigint not null, currency text not null, account text, created_at timestamptz not null)`);
    app.post('/rows', async (request, reply) => {
      const body = request.body as { amount: string; currency: string; account: string };
      const client = await pool.connect();
      try {
        await client.query('begin');
        const { rows } = await client.query<{ id: string }>(
          'insert into bench_rows (amount_minor, currency, account, created_at) values ($1, $2, $3, now()) returning id',
          [Math.round(Number(body.amount) * 100), body.currency, body.account],
        );
        await client.query('commit');
        return reply
          .code(201)
          .header('location', `/rows/${rows[0]!.id}`)
          .send({ id: rows[0]!.id, ...body });
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    });
  }
  const usersMe = process.env.GATEHOUSE_DATABASE_URL ? await bareUsersMe(app, process.env.GATEHOUSE_DATABASE_URL) : undefined;

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  serveRpc(Number(new URL(address).port), { info: () => ({ client: BASELINE_CLIENT, rows: pool !== undefined, usersMe: usersMe !== undefined }) }, async () => {
    await app.close();
    await pool?.end();
    await usersMe?.close();
  });
}

main().catch(reportStartFailure);
