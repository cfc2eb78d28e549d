// A TCP proxy in front of PostgreSQL that a test takes down and brings back, to show what the server does while
// its database is out of reach: real connections cut, new ones refused, then the same address serving again.
import net from 'node:net';

export interface DatabaseProxy {
  /** `url` pointed at the proxy instead of the database server. */
  route(url: string): string;
  /** Cuts every open connection and refuses new ones. */
  down(): Promise<void>;
  /** Accepts connections again, on the same port. */
  up(): Promise<void>;
  /** Cuts every open connection, then takes new ones and answers nothing on them (a hung server) until up(). */
  silent(): void;
}

export async function startDatabaseProxy(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let silent = false;
  const server = net.createServer((client) => {
    if (silent) {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      // A client giving up may reset the connection: unheard, that would fail the test as an uncaught error.
      client.on('error', () => client.destroy());
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    route: (url) => {
      const routed = new URL(url);
      routed.hostname = '127.0.0.1';
      routed.port = String(port);
      return routed.toString();
    },
    down: () =>
      new Promise<void>((resolve) => {
        // close() stops accepting and calls back once the open connections, destroyed here, are gone.
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    up: async () => {
      silent = false;
      for (const socket of sockets) socket.destroy();
      if (!server.listening) await listen(port);
    },
    silent: () => {
      silent = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}
