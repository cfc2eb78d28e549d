import js from '@eslint/js';
import { config as n8nNodeConfig } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

// What is published: the nodes and credentials (and package.json, which n8n's config lints by name).
const PACKAGE_SOURCES = ['nodes/**/*.ts', 'credentials/**/*.ts'];

const nodeGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  process: 'readonly',
  console: 'readonly',
  __dirname: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  fetch: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
};

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '.e2e/**', '.demo/**'] },
  // n8n's own config, as `n8n-node lint` and n8n-nodes-starter run it and n8n's scanner checks published packages,
  // on the package. Its rules for every `.ts` file are narrowed to the package's sources: they forbid what the
  // server and the tests need (other imports, Node globals, console).
  ...n8nNodeConfig.map((entry) =>
    entry.files?.includes('**/*.ts') ? { ...entry, files: PACKAGE_SOURCES } : entry,
  ),
  // The rest of the repository: the server, tests, benchmarks and tool configs.
  ...tseslint.config({
    files: ['**/*.{ts,js,cjs,mjs}'],
    ignores: PACKAGE_SOURCES,
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
  }),
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
];
