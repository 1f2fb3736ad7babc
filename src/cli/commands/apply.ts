// `gatehouse apply -f FILE [--dry-run] [--prune]` and `gatehouse export [-o FILE]`: resource servers,
// identity providers and clients as code (docs/configuration-as-code.md). Apply acts as the CLI's user; its audit events share one
// trace id, `cli:apply:<uuid>`, so a run can be read back as a whole.
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CliDeps } from '../deps.js';
import { AdminRuleError, cliActor, coreAuditSink } from '../../admin-services/index.js';
import { applyConfiguration, type ApplyDeps } from '../../admin-services/apply-configuration.js';
import { formatConfigFile, MAX_CONFIG_FILE_BYTES, parseConfigFile } from '../../admin-services/config-file.js';
import { exportConfiguration } from '../../admin-services/export-configuration.js';
import { UsageError, type Command } from '../command.js';

const applyDeps = (core: CliDeps): ApplyDeps => ({
  store: core.store,
  clock: core.clock,
  config: core.config,
  clients: core.clients,
  resources: core.resources,
  outbound: core.outbound,
  keyEncryptionKey: core.keyEncryptionKey,
  audit: coreAuditSink(core),
});

/** Errors name the place in the file (`clients[2].redirect_uris`) and stop the run before any change. */
async function inFileTerms<T>(file: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AdminRuleError) throw new UsageError(`${file}: ${error.field ? `${error.field}: ` : ''}${error.message}`);
    throw error;
  }
}

function readConfigText(path: string): string {
  try {
    // Refused before reading: the file's size bounds what a run may parse.
    if (statSync(path).size > MAX_CONFIG_FILE_BYTES) throw new UsageError(`${path}: the file is larger than ${MAX_CONFIG_FILE_BYTES} bytes`);
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`-f ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

export const applyCommand: Command = {
  name: 'apply',
  usage: 'apply -f FILE [--dry-run] [--prune] (resource servers, identity providers and clients from a YAML file; prints the plan as JSON)',
  async run(args, core) {
    const { values } = parseArgs({
      args,
      options: { file: { type: 'string', short: 'f' }, 'dry-run': { type: 'boolean' }, prune: { type: 'boolean' } },
      strict: true,
    });
    if (!values.file) throw new UsageError('-f FILE is required (see docs/configuration-as-code.md)');
    const path = values.file;
    const text = readConfigText(path);
    return inFileTerms(path, async () => {
      const file = parseConfigFile(text);
      return applyConfiguration(
        applyDeps(core),
        file,
        process.env,
        { dryRun: values['dry-run'] ?? false, prune: values.prune ?? false },
        {
          actor: cliActor(),
          traceId: `cli:apply:${randomUUID()}`,
        },
      );
    });
  },
};

export const exportCommand: Command = {
  name: 'export',
  usage: 'export [-o FILE] (resource servers, identity providers and clients in the apply format, without secrets; JSON on stdout, YAML into FILE)',
  async run(args, core) {
    const { values } = parseArgs({ args, options: { output: { type: 'string', short: 'o' } }, strict: true });
    const file = await exportConfiguration(core);
    if (values.output === undefined) return { version: 1, ...file }; // JSON is YAML: stdout is an apply file as it is.
    try {
      writeFileSync(values.output, formatConfigFile(file));
    } catch (error) {
      throw new UsageError(`-o ${values.output}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    return {
      written: values.output,
      resource_servers: file.resource_servers.length,
      identity_providers: file.identity_providers.length,
      clients: file.clients.length,
    };
  },
};
