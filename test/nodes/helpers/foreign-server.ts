// A loopback server that is not DevData: it answers every request with one fixed answer, as n8n's own address
// does (its editor's page, 200 text/html, for any path) or an Express app without the route (404 "Cannot GET").
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForeignServer {
  baseUrl: string;
  close(): Promise<void>;
}

/** An HTML page like the ones such servers send, which no error message may repeat. */
export const FOREIGN_PAGE =
  '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Error</title></head>\n<body><pre>Cannot GET /v1/dev/user/goals</pre></body>\n</html>\n';

export async function startForeignServer(
  status: number,
  contentType: string | undefined,
  body: string,
  headers: Record<string, string> = {},
): Promise<ForeignServer> {
  const server = createServer((_, res) => {
    res.writeHead(status, { ...headers, ...(contentType ? { 'content-type': contentType } : {}) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
