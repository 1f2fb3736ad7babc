// The bare upstream of the protect scenario: node:http answering a small JSON body, in a child of its own.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportStartFailure, serveRpc } from '../lib/child-rpc.js';

const body = JSON.stringify({ notes: [{ id: '1', text: 'Welcome' }] });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  try {
    serveRpc((server.address() as AddressInfo).port, {}, () => new Promise<void>((resolve) => server.close(() => resolve())));
  } catch (error) {
    reportStartFailure(error);
  }
});
