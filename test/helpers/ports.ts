// A free loopback port for a process a test starts (the e2e harness also runs under Node directly, so this file
// imports only Node's own modules).
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listened on a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
