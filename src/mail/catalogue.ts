// The message catalogue of outgoing e-mail and of the pages its links open (docs/email.md): every text a
// person reads, per language. English is complete and the fallback; a language is added by adding one
// object of the same shape (the type makes a missing text a compile error). The language of a message is
// the recipient's when known, else the first supported one the browser (or admin request) asks for.

export const LOCALES = ['en', 'de'] as const;
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
