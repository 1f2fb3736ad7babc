export interface Cluster {
  url: string;
  port: number;
  dir: string;
  databaseUrl(name: string): string;
  pause(): unknown;
  resume(): unknown;
  /** The running postmaster's pid (first line of `<dir>/data/postmaster.pid`), or undefined when the server is stopped. */
  postmasterPid(): number | undefined;
  stop(): void;
}
export function findPostgresBin(): string | undefined;
export function freePort(): Promise<number>;
export function startCluster(options?: { maxConnections?: number }): Promise<Cluster>;
