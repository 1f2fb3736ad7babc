// The operator's admin API client: a confidential client_credentials client with admin:read and admin:write,
// created through the `gatehouse` CLI (in-process or spawned, whichever `cli` runs).

/** Runs a `gatehouse` command and answers its JSON output. */
export type Cli = (...argv: string[]) => Promise<Record<string, unknown>>;

export async function createAdminClient(cli: Cli, name: string): Promise<{ id: string; secret: string }> {
  const created = await cli(
    'clients',
    'create',
    '--name',
    name,
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'admin:read admin:write',
  );
  return { id: String(created.client_id), secret: String(created.client_secret) };
}
