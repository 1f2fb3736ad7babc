// A browser without a browser, for the login-flow scenario: a cookie jar, manual redirects, and a parser for
// server-rendered forms (action + hidden inputs, attributes in any order). It submits what a user would.
const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1]!.toLowerCase()] = decode(m[2] ?? m[3] ?? '');
  return out;
}

export interface PageForm {
  action: string;
  hidden: Record<string, string>;
  fields: Set<string>;
}

/** The first POST form of a page. */
export function parsePostForm(html: string): PageForm | undefined {
  const formTag = [...html.matchAll(/<form\b[^>]*>/gi)].map((m) => m[0]).find((t) => (attributes(t).method ?? '').toLowerCase() === 'post');
  if (!formTag) return undefined;
  const body = html.slice(html.indexOf(formTag));
  const hidden: Record<string, string> = {};
  const fields = new Set<string>();
  for (const m of body.matchAll(/<(input|button)\b[^>]*>/gi)) {
    const a = attributes(m[0]);
    if (!a.name) continue;
    fields.add(a.name);
    if ((a.type ?? '').toLowerCase() === 'hidden') hidden[a.name] = a.value ?? '';
  }
  return { action: attributes(formTag).action ?? '', hidden, fields };
}

export class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(new URL(url, this.base), {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers,
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}
