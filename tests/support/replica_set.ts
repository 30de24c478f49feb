/**
 * Replicas of the real server on one PostgreSQL schema, each reaching the database through a TCP
 * proxy of its own, so a test can cut one replica's database connection, kill -9 one and restart
 * it the way the README says (the same `deno task start` with the same DATABASE_URL).
 */
import { ApiClient } from "./api.ts";
import { startServer, type TestServer } from "./server.ts";
import { startTcpProxy, type TcpProxy } from "./tcp_proxy.ts";

/** One replica: its proxy stays across restarts; `api` is undefined while it is down. */
export interface Replica {
  index: number;
  proxy: TcpProxy;
  server: TestServer | undefined;
  api: ApiClient | undefined;
}

/** Starts `count` replicas on `databaseUrl`, each through a proxy; dispose() ends them all. */
export class ReplicaSet {
  readonly replicas: Replica[] = [];
  #databaseUrl: string;
  #token: string;
  #env: Record<string, string>;

  private constructor(databaseUrl: string, token: string, env: Record<string, string>) {
    this.#databaseUrl = databaseUrl;
    this.#token = token;
    this.#env = env;
  }

  /**
   * Starts the replicas one after another (each migrates under the advisory lock), each with
   * `env` (settings such as EVENT_RETENTION) besides its DATABASE_URL.
   */
  static async start(
    count: number,
    databaseUrl: string,
    token: string,
    env: Record<string, string> = {},
  ): Promise<ReplicaSet> {
    const set = new ReplicaSet(databaseUrl, token, env);
    const target = new URL(databaseUrl);
    try {
      for (let index = 0; index < count; index++) {
        const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
        const replica: Replica = { index, proxy, server: undefined, api: undefined };
        set.replicas.push(replica);
        await set.restart(index);
      }
    } catch (error) {
      await set.dispose();
      throw error;
    }
    return set;
  }

  /** The replicas that are up now. */
  get live(): Replica[] {
    return this.replicas.filter((replica) => replica.api !== undefined);
  }

  /** kill -9 of the server process: no shutdown, in-flight requests are cut. */
  async kill(index: number): Promise<void> {
    const replica = this.replicas[index];
    replica.api = undefined;
    await replica.server?.stop("SIGKILL");
    await replica.server?.dispose();
    replica.server = undefined;
  }

  /** Starts the replica again (a new port), as a fresh process on the same database. */
  async restart(index: number): Promise<void> {
    const replica = this.replicas[index];
    const url = new URL(this.#databaseUrl);
    url.port = String(replica.proxy.port);
    replica.server = await startServer({ env: { ...this.#env, DATABASE_URL: url.toString() } });
    replica.api = new ApiClient(replica.server.url, this.#token);
  }

  /** Stops every server and closes every proxy. */
  async dispose(): Promise<void> {
    for (const replica of this.replicas) {
      replica.api = undefined;
      await replica.server?.dispose();
      replica.proxy.close();
    }
  }
}
