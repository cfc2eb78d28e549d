/**
 * The real-n8n suites: each file starts its own n8n and devdata-server for its whole run (2.x; 1.x on Node 20),
 * and the files run side by side, one worker each.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/e2e'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/e2e/global-setup.ts',
  testTimeout: 120_000,
  maxWorkers: 2,
};
