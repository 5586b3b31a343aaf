/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  testTimeout: 120000,
  // The default report, then the ten slowest files (test/support/slowestFiles.cjs).
  reporters: ['default', '<rootDir>/test/support/slowestFiles.cjs'],
  // The devnet's executor runs in worker threads that outlive a test file by a moment.
  forceExit: true,
};
