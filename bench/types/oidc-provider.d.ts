// The slice of node-oidc-provider 9's API the peer uses (the package ships no types; @types/oidc-provider
// is not installed). Configuration stays loosely typed: it is the library's own documented object.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type Configuration = Record<string, unknown> & {
    jwks?: { keys: Record<string, unknown>[] };
    findAccount?: (ctx: unknown, sub: string) => { accountId: string; claims(): Record<string, unknown> };
  };
  interface Saveable {
    save(): Promise<string>;
  }
  interface GrantInstance extends Saveable {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
  }
  interface ClientInstance {
    clientId: string;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): this;
    Client: { find(id: string): Promise<ClientInstance | undefined> };
    Grant: new (init: { accountId: string; clientId: string }) => GrantInstance;
    AuthorizationCode: new (init: Record<string, unknown>) => Saveable;
    RefreshToken: new (init: Record<string, unknown>) => Saveable;
  }
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  export default class MemoryAdapter {
    constructor(model: string, store: unknown, clockTolerance?: number);
  }
}
declare module 'oidc-provider/lib/helpers/lru.js' {
  export default class LRU {
    constructor(options: { maxSize: number });
  }
}
