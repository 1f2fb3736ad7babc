// User passwords: argon2id with the OWASP-recommended parameters (m = 19 MiB, t = 2, p = 1).
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { concurrencyGate } from './concurrency-gate.js';

// The library's default algorithm is argon2id (its const enum cannot be imported under verbatimModuleSyntax);
// a test asserts the stored hashes start with $argon2id$.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// argon2 runs on libuv's thread pool, which WebCrypto signing (every token, every id_token) shares. Left
// alone, a burst of logins fills all its threads with 20 ms hashes: token signing queues behind them, memory
// grows by 19 MiB per hash in flight, and hashes sharing a core cost ~20% more CPU each (measured on 2 cores:
// 19 ms per verify two at a time, 24 ms four at a time). So at most one hash per core runs, and never more
// than the pool minus one thread.
const THREAD_POOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE) || 4;
export const PASSWORD_HASH_CONCURRENCY = Math.max(1, Math.min(availableParallelism(), THREAD_POOL_SIZE - 1));
export const passwordHashing = concurrencyGate(PASSWORD_HASH_CONCURRENCY);

export const hashPassword = (password: string): Promise<string> => passwordHashing.run(() => hash(password, OPTIONS));

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await passwordHashing.run(() => verify(stored, password));
  } catch {
    return false;
  }
}

// Verifying against this when the user does not exist keeps "unknown user" and "wrong password" equally slow.
let dummy: Promise<string> | undefined;
export const dummyPasswordHash = (): Promise<string> => (dummy ??= hashPassword('gatehouse-timing-equaliser'));
