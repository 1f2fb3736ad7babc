// The slice of node-oidc-provider 9's API the bench peer and the federation tests' upstream
// (test/helpers/oidc-upstream.ts) use (the package ships no types; @types/oidc-provider
// is not installed). Configuration stays loosely typed: it is the library's own documented object.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type Configuration = Record<string, unknown> & {
    jwks?: { keys: Record<string, unknown>[] };
    findAccount?: (
      ctx: unknown,
      sub: string,
    ) => { accountId: string; claims(): Record<string, unknown> } | Promise<{ accountId: string; claims(): Promise<Record<string, unknown>> } | undefined>;
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
  /** What an adapter stores: the model's JSON, with the fields the adapter indexes by. */
  export type AdapterPayload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }
  export const errors: { InvalidGrant: new (detail: string) => Error };
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): this;
    Client: { find(id: string): Promise<ClientInstance | undefined> };
    Grant: new (init: {
      accountId: string;
      clientId: string;
    }) => GrantInstance;
    AuthorizationCode: new (
      init: Record<string, unknown>,
    ) => Saveable;
    RefreshToken: new (
      init: Record<string, unknown>,
    ) => Saveable;
    AccessToken: { find(token: string): Promise<{ accountId: string } | undefined> };
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
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
