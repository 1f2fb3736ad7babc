// `gatehouse protect …` is listed with the other commands (usage, suggestions) but is a process of its own:
// src/cli.ts hands it to src/protect/ before any configuration or database is opened — the proxy reads
// Gatehouse over HTTP only (docs/protect.md). Reaching this run() means that hand-over was bypassed.
import { UsageError, type Command } from '../command.js';

export const PROTECT_COMMAND_USAGE =
  'protect --resource URI --upstream http://HOST:PORT [--listen :8080] [--route "GET /notes*=notes:read"]... [--issuer URL] [--ops-listen 127.0.0.1:9090] (GATEHOUSE_CLIENT_ID, GATEHOUSE_CLIENT_SECRET in the environment; docs/protect.md)';

export const protectCommand: Command = {
  name: 'protect',
  usage: PROTECT_COMMAND_USAGE,
  async run() {
    throw new UsageError('protect runs as a process of its own: gatehouse protect --resource URI --upstream URL (not through a running server)');
  },
};
