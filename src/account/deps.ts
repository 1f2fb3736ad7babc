// What the /account face needs, declared here and satisfied by the composition root (src/services.ts): the
// sign-in flow's dependencies (it signs in through the same pipeline), its own stores, and the self-service
// pieces it offers (e-mail change, security notices).
import type { Config } from '../config.js';
import type { FlowDeps } from '../interaction/flow-deps.js';
import type { SelfService } from '../self-service/index.js';
import type { AccountRepository } from '../storage/repositories/account-repository.js';
import type { DelegationsRepository } from '../storage/repositories/delegations-repository.js';
import type { UsersRepository } from '../storage/repositories/users-repository.js';
import type { RemovePasskey, UnlinkProvider } from '../user-rules/unlink-provider.js';
import type { accountPasswordChange } from './account-password.js';

/**
 * The /account page's own stores: grants per app, the password change with its budget, unlinking a provider
 * and removing a passkey (both never the last way in).
 */
interface AccountStores {
  readonly account: AccountRepository;
  /** Token-exchange delegations in the user's name (docs/token-exchange.md). */
  readonly delegations: Pick<DelegationsRepository, 'listLive'>;
  readonly changePassword: ReturnType<typeof accountPasswordChange>;
  readonly unlinkProvider: UnlinkProvider;
  readonly removePasskey: RemovePasskey;
}

export interface AccountDeps {
  readonly config: Config;
  readonly users: UsersRepository;
  readonly flow: FlowDeps;
  readonly account: AccountStores;
  /** Forgotten passwords, sign-up, e-mail change and security notices (src/self-service/, docs/email.md). */
  readonly selfService: SelfService;
}
