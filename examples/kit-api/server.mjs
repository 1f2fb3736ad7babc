// A notes API that trusts Gatehouse access tokens through the resource-server kit (@gatehouse/resource-server):
// one verifyRequest per request does every check (signature from the JWKS, iss, aud = this API, typ at+jwt,
// expiry, DPoP when the token is bound, the route's scope), and the kit follows Gatehouse's revocation feed with
// this API's own credentials, so a revoked token is refused within a second. Plain node:http: the same call works
// from Express (`req`), Hono (`c.req.raw`) or an MCP server.
import { createServer } from 'node:http';
import { resourceServer, revocationFollower } from '@gatehouse/resource-server';

const { ISSUER, IDENTIFIER, CLIENT_ID, CLIENT_SECRET, PORT = '4000' } = process.env;
if (!ISSUER || !IDENTIFIER || !CLIENT_ID || !CLIENT_SECRET) throw new Error('set ISSUER, IDENTIFIER, CLIENT_ID and CLIENT_SECRET');

const api = resourceServer({
  issuer: ISSUER,
  resource: IDENTIFIER,
  routes: ['GET /api/notes*=notes:read', 'POST /api/notes*=notes:write', 'DELETE /api/notes*=notes:write'],
  revocations: revocationFollower({ issuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }),
  // What clients call this API by (the DPoP proof's htu): here the identifier's origin is not where it listens.
  publicBaseUrl: `http://127.0.0.1:${PORT}`,
});

const notes = new Map([['1', { id: '1', text: 'Welcome', owner: null }]]);

function send(response, status, body, headers = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

createServer(async (request, response) => {
  const url = new URL(request.url, 'http://localhost');
  if (url.pathname === api.metadataPath) return send(response, 200, api.metadata());
  const result = await api.verifyRequest({ method: request.method, url: request.url, headers: request.headers });
  if (!result.ok) return send(response, result.status, { error: result.error ?? 'unauthorized', error_description: result.description }, result.headers);
  const { identity } = result;
  if (request.method === 'GET' && url.pathname === '/api/notes') return send(response, 200, { notes: [...notes.values()], caller: identity.sub });
  if (request.method === 'POST' && url.pathname === '/api/notes') {
    let text = '';
    for await (const chunk of request) text += chunk;
    const note = { id: String(notes.size + 1), text: String(JSON.parse(text || '{}').text ?? ''), owner: identity.sub };
    notes.set(note.id, note);
    return send(response, 201, note);
  }
  send(response, 404, { error: 'not_found' });
}).listen(Number(PORT), '127.0.0.1', () => console.log(`notes API (kit) on http://127.0.0.1:${PORT}`));
