import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** This server's version, as its package.json says (from src/ and from dist/ alike). */
export const SERVER_VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;
