// The message catalogue of outgoing e-mail and of the pages its links open (docs/email.md): every text a
// person reads, per language. English is complete and the fallback; a language is added by adding one
// object of the same shape (the type makes a missing text a compile error). The language of a message is
// the recipient's when known, else the first supported one the browser (or admin request) asks for.

const LOCALES = ['en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export interface Catalogue {
  /** `{brand}`, `{name}`, `{hours}` are filled in; everything is escaped for HTML after filling. */
  invitation: {
    subject: string;
    greeting: string;
    greetingNamed: string;
    body: string;
    action: string;
    expiry: string;
    ignore: string;
  };
  invitationPage: {
    title: string;
    intro: string;
    password: string;
    passwordHint: string;
    confirm: string;
    submit: string;
    done: string;
    signIn: string;
    invalid: string;
    mismatch: string;
    tooShort: string;
    tooLong: string;
  };
  /** Self-service messages (docs/email.md): `{brand}`, `{username}`, `{minutes}`, `{hours}`, `{email}` filled in. */
  passwordReset: { subject: string; body: string; action: string; expiry: string; ignore: string };
  signupVerification: { subject: string; body: string; action: string; expiry: string; ignore: string };
  signupExisting: { subject: string; body: string; action: string; ignore: string };
  emailChangeVerification: { subject: string; body: string; action: string; expiry: string; ignore: string };
  /** Security notices: the account changed; each ends with `notYou` and a link to the account page. */
  notices: {
    passwordChangedSubject: string;
    passwordChanged: string;
    emailChangedSubject: string;
    emailChanged: string;
    factorAddedSubject: string;
    totpAdded: string;
    passkeyAdded: string;
    providerLinked: string;
    notYou: string;
    action: string;
  };
  footer: string;
}

const en: Catalogue = {
  invitation: {
    subject: 'You are invited to {brand}',
    greeting: 'Hello,',
    greetingNamed: 'Hello {name},',
    body: 'An account at {brand} has been created for you. Choose your password to start using it.',
    action: 'Choose your password',
    expiry: 'The link works once and expires in {hours} hours.',
    ignore: 'If you did not expect this invitation, you can ignore this message.',
  },
  invitationPage: {
    title: 'Choose your password',
    intro: 'Your account at {brand}: {email}',
    password: 'New password',
    passwordHint: 'At least {min} characters.',
    confirm: 'Repeat the password',
    submit: 'Set password',
    done: 'Your password is set. You can now sign in.',
    signIn: 'Sign in',
    invalid: 'This link is not valid any more: it was used, revoked or has expired. Ask for a new invitation.',
    mismatch: 'The two passwords differ.',
    tooShort: 'The password needs at least {min} characters.',
    tooLong: 'The password may have at most {max} characters.',
  },
  passwordReset: {
    subject: 'Reset your {brand} password',
    body: 'Someone asked to reset the password of your account {username} at {brand}. If it was you, choose a new password.',
    action: 'Choose a new password',
    expiry: 'The link works once and expires in {minutes} minutes. Two-step verification stays on: you will still need your second factor.',
    ignore: 'If you did not ask for this, ignore this message: your password stays as it is.',
  },
  signupVerification: {
    subject: 'Confirm your e-mail address for {brand}',
    body: 'Confirm that this address is yours to finish creating your account at {brand}.',
    action: 'Confirm and create the account',
    expiry: 'The link works once and expires in {hours} hours.',
    ignore: 'If you did not sign up, ignore this message: no account is created.',
  },
  signupExisting: {
    subject: 'Sign-up attempt at {brand}',
    body: 'Someone tried to create an account at {brand} with this address, which already has an account ({username}). No new account was created.',
    action: 'Forgot your password?',
    ignore: 'If it was you, sign in, or reset your password if you forgot it. Otherwise you can ignore this message.',
  },
  emailChangeVerification: {
    subject: 'Confirm your new e-mail address for {brand}',
    body: 'Confirm that this address is yours to make it the address of the account {username} at {brand}.',
    action: 'Confirm the new address',
    expiry: 'The link works once and expires in {hours} hours.',
    ignore: 'If you did not ask for this, ignore this message: the account keeps its address.',
  },
  notices: {
    passwordChangedSubject: 'Your {brand} password was changed',
    passwordChanged: 'The password of your account {username} at {brand} was changed. Every session was signed out.',
    emailChangedSubject: 'The e-mail address of your {brand} account was changed',
    emailChanged: 'The e-mail address of your account {username} at {brand} was changed to {email}. This address will no longer receive its messages.',
    factorAddedSubject: 'A sign-in method was added to your {brand} account',
    totpAdded: 'An authenticator app was added to your account {username} at {brand}.',
    passkeyAdded: 'A passkey was added to your account {username} at {brand}.',
    providerLinked: 'Signing in with {provider} was added to your account {username} at {brand}.',
    notYou: 'If this was not you, reset your password and review the sign-in methods on your account page at once.',
    action: 'Open your account',
  },
  footer: 'Sent by {brand}.',
};

const de: Catalogue = {
  invitation: {
    subject: 'Einladung zu {brand}',
    greeting: 'Hallo,',
    greetingNamed: 'Hallo {name},',
    body: 'Für Sie wurde ein Konto bei {brand} angelegt. Wählen Sie Ihr Passwort, um es zu nutzen.',
    action: 'Passwort wählen',
    expiry: 'Der Link funktioniert einmal und läuft in {hours} Stunden ab.',
    ignore: 'Falls Sie diese Einladung nicht erwartet haben, können Sie diese Nachricht ignorieren.',
  },
  invitationPage: {
    title: 'Passwort wählen',
    intro: 'Ihr Konto bei {brand}: {email}',
    password: 'Neues Passwort',
    passwordHint: 'Mindestens {min} Zeichen.',
    confirm: 'Passwort wiederholen',
    submit: 'Passwort speichern',
    done: 'Ihr Passwort ist gespeichert. Sie können sich jetzt anmelden.',
    signIn: 'Anmelden',
    invalid: 'Dieser Link ist nicht mehr gültig: Er wurde benutzt, widerrufen oder ist abgelaufen. Bitten Sie um eine neue Einladung.',
    mismatch: 'Die beiden Passwörter unterscheiden sich.',
    tooShort: 'Das Passwort braucht mindestens {min} Zeichen.',
    tooLong: 'Das Passwort darf höchstens {max} Zeichen haben.',
  },
  passwordReset: {
    subject: 'Passwort für {brand} zurücksetzen',
    body: 'Jemand möchte das Passwort Ihres Kontos {username} bei {brand} zurücksetzen. Falls Sie es waren, wählen Sie ein neues Passwort.',
    action: 'Neues Passwort wählen',
    expiry:
      'Der Link funktioniert einmal und läuft in {minutes} Minuten ab. Die Zwei-Schritt-Verifizierung bleibt aktiv: Sie brauchen weiterhin Ihren zweiten Faktor.',
    ignore: 'Falls Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Ihr Passwort bleibt unverändert.',
  },
  signupVerification: {
    subject: 'Bestätigen Sie Ihre E-Mail-Adresse für {brand}',
    body: 'Bestätigen Sie, dass diese Adresse Ihnen gehört, um Ihr Konto bei {brand} anzulegen.',
    action: 'Bestätigen und Konto anlegen',
    expiry: 'Der Link funktioniert einmal und läuft in {hours} Stunden ab.',
    ignore: 'Falls Sie sich nicht registriert haben, ignorieren Sie diese Nachricht: Es wird kein Konto angelegt.',
  },
  signupExisting: {
    subject: 'Registrierungsversuch bei {brand}',
    body: 'Jemand wollte mit dieser Adresse ein Konto bei {brand} anlegen. Zu ihr gibt es bereits ein Konto ({username}); es wurde kein neues angelegt.',
    action: 'Passwort vergessen?',
    ignore: 'Falls Sie es waren, melden Sie sich an oder setzen Sie Ihr Passwort zurück. Andernfalls können Sie diese Nachricht ignorieren.',
  },
  emailChangeVerification: {
    subject: 'Bestätigen Sie Ihre neue E-Mail-Adresse für {brand}',
    body: 'Bestätigen Sie, dass diese Adresse Ihnen gehört, um sie zur Adresse des Kontos {username} bei {brand} zu machen.',
    action: 'Neue Adresse bestätigen',
    expiry: 'Der Link funktioniert einmal und läuft in {hours} Stunden ab.',
    ignore: 'Falls Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Das Konto behält seine Adresse.',
  },
  notices: {
    passwordChangedSubject: 'Ihr Passwort bei {brand} wurde geändert',
    passwordChanged: 'Das Passwort Ihres Kontos {username} bei {brand} wurde geändert. Alle Sitzungen wurden abgemeldet.',
    emailChangedSubject: 'Die E-Mail-Adresse Ihres Kontos bei {brand} wurde geändert',
    emailChanged: 'Die E-Mail-Adresse Ihres Kontos {username} bei {brand} wurde in {email} geändert. Diese Adresse erhält seine Nachrichten nicht mehr.',
    factorAddedSubject: 'Ihrem Konto bei {brand} wurde eine Anmeldemethode hinzugefügt',
    totpAdded: 'Ihrem Konto {username} bei {brand} wurde eine Authenticator-App hinzugefügt.',
    passkeyAdded: 'Ihrem Konto {username} bei {brand} wurde ein Passkey hinzugefügt.',
    providerLinked: 'Ihrem Konto {username} bei {brand} wurde die Anmeldung mit {provider} hinzugefügt.',
    notYou: 'Falls Sie das nicht waren, setzen Sie sofort Ihr Passwort zurück und prüfen Sie die Anmeldemethoden auf Ihrer Kontoseite.',
    action: 'Konto öffnen',
  },
  footer: 'Gesendet von {brand}.',
};

const catalogues: Record<Locale, Catalogue> = { en, de };

export const catalogue = (locale: Locale): Catalogue => catalogues[locale];

export const isLocale = (value: unknown): value is Locale => typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/** Fills `{key}` placeholders; an unknown key stays as written (a catalogue mistake shows, never throws). */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

/**
 * The language to write in: the first of `preferences` that names a supported language. Each preference is
 * a locale (`de-CH`) or an Accept-Language header (`fr;q=0.9, de;q=0.8`), read by its quality values.
 */
export function chooseLocale(...preferences: (string | undefined | null)[]): Locale {
  for (const preference of preferences) {
    if (!preference) continue;
    const ranked = preference
      .slice(0, 500)
      .split(',')
      .map((part, index) => {
        const [tag = '', ...params] = part.trim().split(';');
        const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
        return { language: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), index };
      })
      .filter((entry) => entry.q > 0)
      .sort((a, b) => b.q - a.q || a.index - b.index);
    const found = ranked.find((entry) => isLocale(entry.language));
    if (found) return found.language as Locale;
  }
  return DEFAULT_LOCALE;
}
