// The README's quickstart, run as written: every ```sh quickstart block of README.md, in order, against a
// real server process (what `npm start` runs). `npx gatehouse …` runs the real CLI (on the server's
// embedded database), `curl …` becomes the same HTTP request with fetch, the browser step is the real login and
// consent pages, and the words in capitals are the values earlier steps printed. A command edited in the
// README that no longer works, an unknown curl flag or an unknown placeholder fails this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from './helpers/server-process.js';
import { browserlessLogin } from './helpers/browserless-login.js';
import { commandLines } from './helpers/shell-words.js';

const README_ORIGIN = 'http://localhost:3000';
const PLACEHOLDER = /\b(CLIENT_ID|CLIENT_SECRET|CODE_VERIFIER|CODE|ACCESS_TOKEN|REFRESH_TOKEN|USER_ID)\b/g;

function quickstartBlocks(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  return [...readme.matchAll(/^```sh quickstart\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

type Json = Record<string, unknown>;

const TSX = import.meta.resolve('tsx');
const CLI = fileURLToPath(new URL('helpers/cli-entry.ts', import.meta.url));

// The CLI reads the database itself and prints URLs under ISSUER: it is given the server's, as a reader's shell
// running both with the defaults would. Like the server, it runs in the reader's directory with no DATA_DIR: the
// default ./data is what both must find.
function cli(args: string[], cwd: string, issuer: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const { DATA_DIR: _inherited, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TSX, CLI, ...args], { cwd, env: { ...env, ISSUER: issuer }, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** A curl command line as a fetch request: only the flags the README uses are understood. */
function curlRequest(args: string[]): { url: string; init: RequestInit } {
  const headers: Record<string, string> = {};
  const body: string[] = [];
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`curl ${flag} needs a value`);
      return v;
    };
    if (flag === '-s') continue;
    else if (flag === '-u') headers.authorization = `Basic ${Buffer.from(value()).toString('base64')}`;
    else if (flag === '-d') body.push(value());
    else if (flag === '--data-urlencode') {
      const v = value();
      const at = v.indexOf('=');
      body.push(`${v.slice(0, at)}=${encodeURIComponent(v.slice(at + 1))}`);
    } else if (flag === '-H') {
      const v = value();
      headers[v.slice(0, v.indexOf(':')).trim().toLowerCase()] = v.slice(v.indexOf(':') + 1).trim();
    } else if (flag.startsWith('-')) throw new Error(`curl flag ${flag} is not understood by this test: teach curlRequest or use another`);
    else if (url === undefined) url = flag;
    else throw new Error(`a second URL in curl: ${flag}`);
  }
  if (!url) throw new Error('curl without a URL');
  if (body.length === 0) return { url, init: { headers } };
  return { url, init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: body.join('&') } };
}

test('the README quickstart works as written: user, login client, browser login, code exchange, userinfo, refresh, client credentials, API call', async () => {
  const blocks = quickstartBlocks();
  assert.ok(blocks.length >= 5, `found ${blocks.length} quickstart blocks`);
  assert.match(readFileSync('README.md', 'utf8'), /npm start/);
  // The reader's checkout: the server and the CLI run there with the default DATA_DIR (./data), never a setting.
  const checkout = mkdtempSync(join(tmpdir(), 'gatehouse-readme-'));
  const server = await startServerProcess({ KEY_ENCRYPTION_KEY: '' }, { cwd: checkout });
  const values: Record<string, string> = {};
  const seen: { command: string; output: Json }[] = [];
  let login: { username: string; password: string } | undefined;
  let authorizeUrl: string | undefined;
  try {
    const substitute = async (word: string): Promise<string> => {
      if (/\bCODE\b/.test(word) && values.CODE === undefined) {
        // The browser step: open try_it.authorize_url, sign in as the user created above, press Allow.
        assert.ok(authorizeUrl && login, 'the README creates a user and a login client before it needs a CODE');
        const back = await browserlessLogin(authorizeUrl, login);
        values.CODE = back.searchParams.get('code') ?? assert.fail(`no code in ${back.href}`);
      }
      // Unknown placeholders are looked for in the README's own word, with the known ones taken out: a value
      // put in their place (a random code, a token) may itself contain a run like "-AB_CD".
      assert.doesNotMatch(word.replace(PLACEHOLDER, ''), /\b[A-Z]+(?:_[A-Z]+)+\b/, `unknown placeholder in ${word}`);
      return word
        .replaceAll(README_ORIGIN, server.url)
        .replace(PLACEHOLDER, (name) => values[name] ?? assert.fail(`${name} is used before any step printed it`));
    };
    for (const block of blocks) {
      for (const line of commandLines(block)) {
        const args = await Promise.all(line.map(substitute));
        const command = line.join(' ');
        let output: Json;
        if (args[0] === 'npx' && args[1] === 'gatehouse') {
          const result = await cli(args.slice(2), checkout, server.url);
          assert.equal(result.status, 0, `${command}\n${result.stderr}`);
          output = JSON.parse(result.stdout) as Json;
          if (args[2] === 'users' && args[3] === 'create') {
            login = { username: args[args.indexOf('--username') + 1]!, password: args[args.indexOf('--password') + 1]! };
            values.USER_ID = String(output.id);
          }
          if (typeof output.client_id === 'string') {
            values.CLIENT_ID = output.client_id;
            if (typeof output.client_secret === 'string') values.CLIENT_SECRET = output.client_secret;
            else delete values.CLIENT_SECRET;
            const tryIt = output.try_it as { authorize_url: string; code_verifier: string } | undefined;
            if (tryIt) [authorizeUrl, values.CODE_VERIFIER] = [tryIt.authorize_url, tryIt.code_verifier];
          }
        } else if (args[0] === 'curl') {
          const { url, init } = curlRequest(args.slice(1));
          const res = await fetch(url, init);
          const text = await res.text();
          assert.equal(res.status, 200, `${command}\n${res.status} ${text}`);
          output = JSON.parse(text) as Json;
          if (typeof output.access_token === 'string') values.ACCESS_TOKEN = output.access_token;
          if (typeof output.refresh_token === 'string') values.REFRESH_TOKEN = output.refresh_token;
          if (url.endsWith('/token') && String(init.body).includes('grant_type=authorization_code')) delete values.CODE;
        } else {
          assert.fail(`the quickstart runs only npx gatehouse and curl commands: ${command}`);
        }
        seen.push({ command, output });
      }
    }
  } finally {
    await server.stop('SIGTERM');
    assert.ok(existsSync(join(checkout, 'data', 'postgres', 'PG_VERSION')), 'the database is in ./data of the working directory');
    rmSync(checkout, { recursive: true, force: true });
  }
  // What the README promises of those steps.
  const tokens = seen.filter((s) => s.command.includes('grant_type=authorization_code') || s.command.includes('grant_type=refresh_token'));
  assert.equal(tokens.length, 2, 'a code exchange and a refresh');
  for (const { output } of tokens) assert.ok(output.access_token && output.id_token && output.refresh_token, JSON.stringify(Object.keys(output)));
  assert.notEqual(tokens[1]!.output.refresh_token, tokens[0]!.output.refresh_token, 'the refresh token rotated');
  assert.equal(seen.find((s) => s.command.includes('/userinfo'))?.output.sub, values.USER_ID);
  assert.equal(seen.find((s) => s.command.includes('/v1/users/'))?.output.username, login?.username);
});
