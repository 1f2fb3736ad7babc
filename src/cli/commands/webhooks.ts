// `gatehouse webhooks create|list|show|update|delete|rotate-secret` (docs/webhooks.md): signed webhook
// endpoints, as /admin/v1/webhooks and `gatehouse apply` manage them — the rules are the service's
// (src/admin-services/webhooks-service.ts). The signing secret is printed by `create` and `rotate-secret`
// only; `list` and `show` never hold it. An endpoint is named by its id or its name.
import { parseArgs } from 'node:util';
import type { CliDeps } from '../deps.js';
import {
  cliActor,
  coreAuditSink,
  createWebhookRecord,
  deleteWebhookRecord,
  findWebhookRecord,
  listWebhookRecords,
  rotateWebhookSecret,
  updateWebhookRecord,
  webhookServiceDeps,
  webhookView,
} from '../../admin-services/index.js';
import { UsageError, type Command } from '../command.js';
import { ruleErrorsAsUsage } from '../rule-errors-as-usage.js';

// The service's errors name API members; the CLI names its flags.
const FLAG_OF: Record<string, string> = { name: '--name', url: '--url', description: '--description', event_types: '--events', grace_period: '--grace-period' };

const asUsage = ruleErrorsAsUsage(FLAG_OF);

const services = (core: CliDeps) => webhookServiceDeps(core, coreAuditSink(core));
const events = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
const view = (core: CliDeps, endpoint: Parameters<typeof webhookView>[0]) => webhookView(endpoint, core.clock.now());

function target(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${usage}`);
  return positionals[0]!;
}

const settingOptions = {
  name: { type: 'string' },
  url: { type: 'string' },
  description: { type: 'string' },
  events: { type: 'string' },
  disabled: { type: 'boolean' },
} as const;

export const webhooksCreateCommand: Command = {
  name: 'webhooks create',
  usage: 'webhooks create --name NAME --url URL [--events TYPE,...] (default: every event type) [--description TEXT] [--disabled]',
  async run(args, core) {
    const { values } = parseArgs({ args, options: settingOptions, strict: true });
    if (!values.name) throw new UsageError('--name is required (lower-case letters, digits and hyphens)');
    if (!values.url) throw new UsageError("--url is required (https; an internal receiver's host must be in WEBHOOK_ALLOWED_HOSTS)");
    const eventTypes = events(values.events);
    const input = {
      name: values.name,
      url: values.url,
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(eventTypes ? { eventTypes } : {}),
      enabled: !values.disabled,
    };
    const { endpoint, secret } = await asUsage(() => createWebhookRecord(services(core), input, { actor: cliActor() }));
    return { ...view(core, endpoint), secret };
  },
};

export const webhooksListCommand: Command = {
  name: 'webhooks list',
  usage: 'webhooks list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    return { webhooks: (await listWebhookRecords(core, { limit: 10_000 })).map((e) => view(core, e)) };
  },
};

export const webhooksShowCommand: Command = {
  name: 'webhooks show',
  usage: 'webhooks show ID|NAME',
  async run(args, core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    const id = target(positionals, 'webhooks show ID|NAME');
    return view(core, await asUsage(() => findWebhookRecord(core, id)));
  },
};

export const webhooksUpdateCommand: Command = {
  name: 'webhooks update',
  usage: 'webhooks update ID|NAME [--name NAME] [--url URL] [--events TYPE,...|""] [--description TEXT] [--enable | --disable]',
  async run(args, core) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        name: { type: 'string' },
        url: { type: 'string' },
        description: { type: 'string' },
        events: { type: 'string' },
        enable: { type: 'boolean' },
        disable: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: true,
    });
    const id = target(positionals, 'webhooks update ID|NAME [flags]');
    if (values.enable && values.disable) throw new UsageError('--enable and --disable exclude each other');
    return asUsage(async () => {
      const current = await findWebhookRecord(core, id);
      const input = {
        name: values.name ?? current.name,
        url: values.url ?? current.url,
        description: values.description ?? current.description,
        eventTypes: events(values.events) ?? current.eventTypes,
        enabled: values.enable ? true : values.disable ? false : current.enabled,
      };
      return view(core, await updateWebhookRecord(services(core), current, input, current.version, { actor: cliActor() }));
    });
  },
};

export const webhooksDeleteCommand: Command = {
  name: 'webhooks delete',
  usage: 'webhooks delete ID|NAME',
  async run(args, core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    const id = target(positionals, 'webhooks delete ID|NAME');
    return asUsage(async () => {
      const current = await findWebhookRecord(core, id);
      await deleteWebhookRecord(services(core), current, current.version, { actor: cliActor() });
      return { deleted: current.id, name: current.name };
    });
  },
};

export const webhooksRotateSecretCommand: Command = {
  name: 'webhooks rotate-secret',
  usage: 'webhooks rotate-secret ID|NAME [--grace-period SECONDS] (default 86400: the previous secret signs too until then; 0: at once)',
  async run(args, core) {
    const { values, positionals } = parseArgs({ args, options: { 'grace-period': { type: 'string' } }, strict: true, allowPositionals: true });
    const id = target(positionals, 'webhooks rotate-secret ID|NAME [--grace-period SECONDS]');
    const grace = values['grace-period'];
    if (grace !== undefined && !/^\d+$/.test(grace)) throw new UsageError('--grace-period must be a whole number of seconds');
    return asUsage(async () => {
      const current = await findWebhookRecord(core, id);
      const { endpoint, secret } = await rotateWebhookSecret(
        services(core),
        current,
        grace !== undefined ? { graceSeconds: Number(grace) } : {},
        current.version,
        { actor: cliActor() },
      );
      return { id: endpoint.id, name: endpoint.name, secret, previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null };
    });
  },
};
