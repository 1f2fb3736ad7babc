// What every sign-in method answers (the model is Ory Kratos' strategies): a method checks one proof —
// a password, a TOTP code, a recovery code, a passkey assertion — after charging the budgets that proof
// draws on, and says whose account it proved and with which RFC 8176 amr values, or why it refused.
// A method never signs anyone in and never writes the audit log: sign-in-pipeline.ts does both, once,
// for every method and both faces (/interaction and /account).

export type SignInMethodName = 'password' | 'totp' | 'recovery_code' | 'passkey';

export type MethodOutcome =
  | { ok: true; userId: string; amr: string[] }
  /** `userId`: the account the attempt named, when known (the refusal's audit subject). */
  | { ok: false; reason: string; userId?: string | undefined; detail?: string | undefined };

/** A refusal as the pipeline records it. */
export type Refusal = Extract<MethodOutcome, { ok: false }>;
