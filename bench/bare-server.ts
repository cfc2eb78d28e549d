// The baseline of the hot-path benchmark: a bare node:http server that answers each request with bytes
// recorded from devdata-server (status, headers, body), doing nothing else. Reads the body of a request
// before answering, as any server must. Usage: node bench/bare-server.ts <responses.json> <port>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const [file, port] = process.argv.slice(2);
const responses = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Recorded>;
const bodies = new Map(
  Object.entries(responses).map(([route, r]) => [route, { ...r, bytes: Buffer.from(r.body) }]),
);

createServer((request, response) => {
  const recorded = bodies.get(`${request.method} ${request.url}`);
  request.resume();
  request.on('end', () => {
    if (!recorded) {
      // GET /ready: the runner's "listening" check, whichever requests were recorded.
      response.writeHead(request.url === '/ready' ? 204 : 404).end();
      return;
    }
    response.writeHead(recorded.status, recorded.headers);
    response.end(recorded.bytes);
  });
}).listen(Number(port), '127.0.0.1');
