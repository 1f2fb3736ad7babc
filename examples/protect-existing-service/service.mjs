// An existing service that knows nothing of OAuth: it trusts the identity `gatehouse protect` puts in the
// gatehouse-* headers, and listens on loopback only, so nothing but the proxy on this machine can reach it.
import { createServer } from 'node:http';

const { PORT = '3000' } = process.env;
const notes = [];

createServer((request, response) => {
  const subject = request.headers['gatehouse-subject'];
  const scopes = String(request.headers['gatehouse-scope'] ?? '').split(' ');
  response.setHeader('content-type', 'application/json');
  if (request.url === '/notes' && request.method === 'GET')
    return response.end(JSON.stringify({ notes: notes.filter((n) => n.owner === subject), subject, scopes }));
  if (request.url === '/notes' && request.method === 'POST') {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const note = { text: body, owner: subject };
      notes.push(note);
      response.statusCode = 201;
      response.end(JSON.stringify(note));
    });
    return;
  }
  response.statusCode = 404;
  response.end('{"error":"not_found"}');
}).listen(Number(PORT), '127.0.0.1', () => console.log(`existing service on http://127.0.0.1:${PORT}`));
