// User passwords: argon2id with the OWASP-recommended parameters (m = 19 MiB, t = 2, p = 1).
import { hash, verify } from '@node-rs/argon2';

// The library's default algorithm is argon2id (its const enum cannot be imported under verbatimModuleSyntax);
// a test asserts the stored hashes start with $argon2id$.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

// Verifying against this when the user does not exist keeps "unknown user" and "wrong password" equally slow.
let dummy: Promise<string> | undefined;
export const dummyPasswordHash = (): Promise<string> => (dummy ??= hashPassword('gatehouse-timing-equaliser'));
