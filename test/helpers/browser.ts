// The one browser for HTTP-level tests of the pages: a cookie jar, manual redirects and a reader for our
// forms (action + hidden inputs). Real browsers are in test/helpers/chromium.ts.

/** The method each response of a Browser was asked with: test/helpers/client-answer.ts expects by it. */
export const methodOf = new WeakMap<Response, string>();

export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string | URL, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.base), { redirect: 'manual', headers: { cookie: this.cookieHeader(), ...headers } });
    methodOf.set(response, 'GET');
    this.remember(response);
    return response;
  }

  async post(path: string | URL, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    methodOf.set(response, 'POST');
    this.remember(response);
    return response;
  }

  /** A JSON POST (the passkey endpoints), keeping the cookies it sets. */
  async postJson(path: string | URL, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    methodOf.set(response, 'POST');
    this.remember(response);
    return response;
  }
}

export interface ParsedForm {
  action: string;
  hidden: Record<string, string>;
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The page's post form: its action and every `<input type="hidden" name=".." value="..">`. */
export function parseForm(html: string): ParsedForm {
  const form = /<form\b[^>]*\baction="([^"]*)"/i.exec(html);
  if (!form) throw new Error(`no form in page: ${html.slice(0, 300)}`);
  const hidden: Record<string, string> = {};
  for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = input[0];
    if (!/\btype="hidden"/i.test(tag)) continue;
    const name = /\bname="([^"]*)"/i.exec(tag)?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(tag)?.[1] ?? '';
    if (name !== undefined) hidden[unescapeHtml(name)] = unescapeHtml(value);
  }
  return { action: unescapeHtml(form[1]!), hidden };
}
