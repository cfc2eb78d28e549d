// Loads the bench's TypeScript (and the test helpers and sources it shares) the way ts-jest does for the
// tests: each .ts file transpiled to CommonJS by the project's TypeScript, with extensionless relative
// imports resolved to .ts (or a folder's index.ts). Node's own type stripping cannot: it needs explicit extensions and refuses
// parameter properties. Registered with `node --import ./bench/ts-hooks.ts`.
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2023,
  esModuleInterop: true,
  sourceMap: false,
  inlineSourceMap: true,
};

registerHooks({
  resolve(specifier, context, nextResolve) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    if (relative && context.parentURL?.startsWith('file:') && !/\.[cm]?[jt]s$/.test(specifier)) {
      // Before Node's own order, which would take `DevData.node.json` for `./DevData.node`.
      for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
        if (existsSync(fileURLToPath(new URL(candidate, context.parentURL)))) {
          return nextResolve(candidate, context);
        }
      }
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
      return nextLoad(url, context);
    }
    const path = fileURLToPath(url);
    const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
      compilerOptions,
      fileName: path,
    });
    return { format: 'commonjs', source: outputText, shortCircuit: true };
  },
});
