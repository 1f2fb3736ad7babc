// The enabled identity providers, kept in memory per app (docs/federation.md, "Cost"), so the anonymous /account
// sign-in form (its view and its POST) and the login pages do not query them on every request. Kept current the
// way the webhook subscriptions are (webhook-subscriptions.ts): every change to `identity_providers` announces
// itself on a notice channel (a statement trigger, migration 0852); a notice, or the listener being
// (re)established, forgets what was read. While the listener is down or its last proof of life is older than
// FRESH_MS, every call reads the database, as without the cache. A write made by this process is announced
// before its commit returns (pool connections listen too), so the next read sees it; another instance's write
// within the freshness bound, as any concurrent commit. Bounded: one list per limit asked, a few limits at most
// (callers ask for MAX_OFFERED); each list is at most `limit` providers.
import { performance } from 'node:perf_hooks';
import type { NotificationSource } from '../driver/notifications.js';
import type { IdentityProvider, IdentityProvidersRepository } from './identity-providers-repository.js';

export const IDENTITY_PROVIDERS_CHANNEL = 'gatehouse_identity_providers';
/** How old the listener's last proof of life may be for what was read to be trusted. */
const FRESH_MS = 2_000;
/** Distinct limits remembered (the oldest goes first). */
const MAX_LISTS = 4;

export interface EnabledIdentityProviders extends Pick<IdentityProvidersRepository, 'listEnabled'> {
  close(): void;
}

/** Without notifications (none configured) every call reads the database. */
export function enabledIdentityProviders(
  repository: Pick<IdentityProvidersRepository, 'listEnabled'>,
  notifications: NotificationSource | undefined,
): EnabledIdentityProviders {
  if (!notifications) return { listEnabled: (limit) => repository.listEnabled(limit), close() {} };
  const lists = new Map<number, IdentityProvider[]>();
  // Concurrent misses of one generation share one read.
  const reading = new Map<number, Promise<IdentityProvider[]>>();
  let generation = 0;
  let listening = false;
  let aliveAsOf = Number.NEGATIVE_INFINITY;

  function forget(): void {
    generation += 1;
    lists.clear();
    reading.clear();
  }
  const fresh = () => listening && performance.now() - aliveAsOf <= FRESH_MS;

  const unsubscribe = notifications.subscribe(IDENTITY_PROVIDERS_CHANNEL, {
    notice: forget,
    listening() {
      listening = true;
      forget();
    },
    alive(asOfMs) {
      aliveAsOf = Math.max(aliveAsOf, asOfMs);
    },
    lost() {
      listening = false;
      aliveAsOf = Number.NEGATIVE_INFINITY;
      forget();
    },
  });

  return {
    listEnabled(limit) {
      if (!fresh()) return repository.listEnabled(limit);
      const known = lists.get(limit);
      if (known) return Promise.resolve([...known]);
      const pending = reading.get(limit);
      if (pending) return pending.then((list) => [...list]);
      const started = generation;
      const read = repository.listEnabled(limit).then((list) => {
        // A notice that arrived meanwhile may describe a change this read did not see: not kept.
        if (generation === started) {
          if (lists.size >= MAX_LISTS) lists.delete(lists.keys().next().value!);
          lists.set(limit, list);
        }
        if (reading.get(limit) === read) reading.delete(limit);
        return list;
      });
      reading.set(limit, read);
      read.catch(() => {
        if (reading.get(limit) === read) reading.delete(limit);
      });
      return read.then((list) => [...list]);
    },
    close: unsubscribe,
  };
}
