// Every login attempt and failure goes through this one hook (rate-limited-logins.ts implements it with the
// shared rate limits). `beforeAttempt` may throw to refuse an attempt outright.
export interface LoginAttempt {
  username: string;
  ip: string;
}

export interface LoginGuard {
  beforeAttempt(attempt: LoginAttempt): Promise<void>;
  failed(attempt: LoginAttempt): Promise<void>;
}
