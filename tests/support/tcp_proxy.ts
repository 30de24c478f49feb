/** A TCP proxy on loopback that a test can cut (every connection closed, new ones refused) and restore. */

/** The proxy: `port` to connect to; cut() and restore(); close() ends it. */
export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): void;
}

/** Proxies a free loopback port to `target`. */
export function startTcpProxy(target: { hostname: string; port: number }): TcpProxy {
  let listener: Deno.Listener | undefined;
  const open = new Set<Deno.Conn>();
  let port = 0;
  /** Counts cuts: a connection accepted before a cut whose upstream connect ended after it is closed. */
  let cuts = 0;

  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable);
    } catch {
      // Cut, or the other side closed.
    }
    for (const conn of [from, to]) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
      open.delete(conn);
    }
  };

  const accept = async (current: Deno.Listener) => {
    for await (const client of current) {
      const accepted = cuts;
      try {
        const server = await Deno.connect(target);
        if (accepted !== cuts) {
          // Cut while connecting upstream: it would have survived the cut.
          server.close();
          client.close();
          continue;
        }
        open.add(client).add(server);
        void pipe(client, server);
        void pipe(server, client);
      } catch {
        client.close();
      }
    }
  };

  const listen = () => {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    port = (listener.addr as Deno.NetAddr).port;
    void accept(listener).catch(() => {});
  };
  listen();

  return {
    get port() {
      return port;
    },
    cut() {
      cuts++;
      listener?.close();
      listener = undefined;
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
      open.clear();
    },
    restore() {
      if (listener === undefined) listen();
    },
    close() {
      this.cut();
    },
  };
}
