// A notes API that trusts Gatehouse access tokens. Every request: an RFC 9068 JWT verified with jose against
// the issuer's JWKS (signature, issuer, audience = this API's identifier, typ at+jwt), then the route's scope.
// DELETE also asks /introspect with this API's own credentials, so a revoked token is refused at once.
import { createServer } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';

const { ISSUER, IDENTIFIER, CLIENT_ID, CLIENT_SECRET, PORT = '4000' } = process.env;
if (!ISSUER || !IDENTIFIER || !CLIENT_ID || !CLIENT_SECRET) throw new Error('set ISSUER, IDENTIFIER, CLIENT_ID and CLIENT_SECRET');

const metadata = await (await fetch(`${ISSUER}/.well-known/oauth-authorization-server`)).json();
const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri));
const notes = new Map([['1', { id: '1', text: 'Welcome' }]]);

class Refusal extends Error {
  constructor(status, error, scope) {
    super(error);
    Object.assign(this, { status, error, scope });
  }
}

async function verify(request, scope) {
  const [scheme, token] = (request.headers.authorization ?? '').split(' ');
  if (scheme !== 'Bearer' || !token) throw new Refusal(401, 'invalid_request');
  const { payload } = await jwtVerify(token, jwks, { issuer: ISSUER, audience: IDENTIFIER, typ: 'at+jwt', algorithms: ['ES256'] }).catch(() => {
    throw new Refusal(401, 'invalid_token');
  });
  if (payload.cnf) throw new Refusal(401, 'invalid_token'); // DPoP-bound: this example does not check proofs
  if (
    !String(payload.scope ?? '')
      .split(' ')
      .includes(scope)
  )
    throw new Refusal(403, 'insufficient_scope', scope);
  return { token, claims: payload };
}

/** RFC 7662: is the token still live right now (not revoked)? */
async function introspect(token) {
  const response = await fetch(metadata.introspection_endpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`)}` },
    body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
  });
  const result = response.ok ? await response.json() : { active: false };
  // aud is this API's identifier, or [identifier, {ISSUER}/userinfo] for a user's openid token (RFC 7662 allows an array).
  if (result.active !== true || ![result.aud].flat().includes(IDENTIFIER)) throw new Refusal(401, 'invalid_token');
}

async function handle(request) {
  const url = new URL(request.url, 'http://localhost');
  if (request.method === 'GET' && url.pathname === '/notes') {
    const { claims } = await verify(request, 'notes:read');
    return [200, { sub: claims.sub, notes: [...notes.values()], ...(claims.department ? { department: claims.department } : {}) }];
  }
  const id = /^\/notes\/([\w-]{1,64})$/.exec(url.pathname)?.[1];
  if (request.method === 'DELETE' && id) {
    const { token } = await verify(request, 'notes:write');
    await introspect(token);
    return notes.delete(id) ? [204] : [404, { error: 'not_found' }];
  }
  return [404, { error: 'not_found' }];
}

createServer((request, response) => {
  handle(request).then(
    ([status, body]) => response.writeHead(status, { 'content-type': 'application/json' }).end(body ? JSON.stringify(body) : undefined),
    (error) => {
      if (!(error instanceof Refusal)) console.error(error);
      const { status = 500, error: code = 'server_error', scope } = error instanceof Refusal ? error : {};
      // RFC 6750 3: 401 and 403 say why in a Bearer challenge.
      const challenge = status === 500 ? {} : { 'www-authenticate': `Bearer error="${code}"${scope ? `, scope="${scope}"` : ''}` };
      response.writeHead(status, { 'content-type': 'application/json', ...challenge }).end(JSON.stringify({ error: code }));
    },
  );
}).listen(Number(PORT), '127.0.0.1', () => console.log(`notes API on http://127.0.0.1:${PORT}, audience ${IDENTIFIER}`));
