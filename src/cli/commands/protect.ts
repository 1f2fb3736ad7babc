// `gatehouse protect …` is listed with the other commands (usage, suggestions) but is a process of its own:
// src/cli.ts hands it to src/protect/ before any configuration or database is opened — the proxy reads
// Gatehouse over HTTP only (docs/protect.md). Reaching this run() means that hand-over was bypassed.
import { UsageError, type Command } from '../command.js';

export const protectCommand: Command = {
  name: 'protect',
  // The options are listed once, by the proxy's own parser (src/protect/options.ts, a face the CLI does not import).
  usage:
    'protect --resource URI --upstream http://HOST:PORT [--route "GET /notes*=notes:read"]... [options: gatehouse protect --help, docs/protect.md] (GATEHOUSE_CLIENT_ID, GATEHOUSE_CLIENT_SECRET in the environment)',
  async run() {
    throw new UsageError('protect runs as a process of its own: gatehouse protect --resource URI --upstream URL (not through a running server)');
  },
};
