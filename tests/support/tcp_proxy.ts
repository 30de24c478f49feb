/**
 * A TCP proxy on loopback that a test can cut and restore. A cut either refuses (every connection
 * closed, new ones refused) or resets (connections are accepted, and any connection dropped as
 * soon as data crosses it: a query reaches the server, its answer never comes back).
 */

/** How a cut behaves: "refuse" closes the port, "reset" accepts and drops mid-conversation. */
export type CutMode = "refuse" | "reset";

/** The proxy: `port` to connect to; cut() and restore(); close() ends it. */
export interface TcpProxy {
  port: number;
  cut(mode?: CutMode): void;
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
  /** True during a "reset" cut. */
  let resetting = false;

  const closeBoth = (a: Deno.Conn, b: Deno.Conn) => {
    for (const conn of [a, b]) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
      open.delete(conn);
    }
  };

  /** Copies `from` to `to`; while resetting, a client's chunk still goes through, a server's not. */
  const pipe = async (from: Deno.Conn, to: Deno.Conn, upstream: boolean) => {
    try {
      const writer = to.writable.getWriter();
      for await (const chunk of from.readable) {
        if (resetting && !upstream) break;
        await writer.write(chunk);
        if (resetting) break;
      }
    } catch {
      // Cut, or the other side closed.
    }
    closeBoth(from, to);
  };

  const accept = async (current: Deno.Listener) => {
    for await (const client of current) {
      // Accepted by the kernel before a cut, taken from the queue after it: refused all the same.
      if (current !== listener) {
        client.close();
        continue;
      }
      const accepted = cuts;
      try {
        const server = await Deno.connect(target);
        if ((accepted !== cuts || current !== listener) && !resetting) {
          // Cut while connecting upstream: it would have survived the cut.
          closeBoth(client, server);
          continue;
        }
        open.add(client).add(server);
        void pipe(client, server, true);
        void pipe(server, client, false);
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
    cut(mode: CutMode = "refuse") {
      cuts++;
      if (mode === "reset") {
        // Connections stay open until data crosses them; new ones are accepted the same way.
        resetting = true;
        return;
      }
      resetting = false;
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
      resetting = false;
      if (listener === undefined) listen();
    },
    close() {
      this.cut();
    },
  };
}
