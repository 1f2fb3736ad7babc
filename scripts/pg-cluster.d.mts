export interface Cluster {
  url: string;
  port: number;
  dir: string;
  databaseUrl(name: string): string;
  pause(): unknown;
  resume(): unknown;
  stop(): void;
}
export function findPostgresBin(): string | undefined;
export function freePort(): Promise<number>;
export function startCluster(options?: { maxConnections?: number }): Promise<Cluster>;
