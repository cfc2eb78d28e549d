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

/** A free port other than `taken`: the kernel may hand a port just probed and closed straight back. */
export async function freePortOtherThan(...taken: number[]): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!taken.includes(port)) return port;
  }
}
