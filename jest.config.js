// Two projects: every suite on the chopsticks devnet, and the conformance suites again beside a
// real node (polkadot-omni-node) when scripts/ensure-node.sh finds its binary; when it does not,
// one line says how to get it and the real-node project is left out.
const { execFileSync } = require('node:child_process');

const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
};

/** The suites that also run beside the real node, by file name under test/. */
const REAL_NODE_SUITES = [
  'conformance',
  'chainInfo',
  'runtimeRoutes',
  'accounts',
  'accountsAssets',
  'palletAssets',
  'pallets',
  'transactionPost',
  'metadataBlob',
  'walletClient',
];

function realNodeProject() {
  try {
    execFileSync('bash', [`${__dirname}/scripts/ensure-node.sh`], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const why = String(error.stderr || error.message)
      .trim()
      .split('\n')
      .pop();
    console.log(`real-node suites skipped: ${why}`);
    return [];
  }
  return [
    {
      ...shared,
      displayName: 'real node',
      roots: ['<rootDir>/test'],
      testMatch: [...REAL_NODE_SUITES.map((name) => `<rootDir>/test/${name}.test.ts`), '<rootDir>/test/realNode/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/onRealNode.ts'],
      globalSetup: '<rootDir>/test/support/realNodeSetup.ts',
      globalTeardown: '<rootDir>/test/support/realNodeTeardown.ts',
    },
  ];
}

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 120000,
  // The default report, then the ten slowest files (test/support/slowestFiles.cjs).
  reporters: ['default', '<rootDir>/test/support/slowestFiles.cjs'],
  // The devnet's executor runs in worker threads that outlive a test file by a moment.
  forceExit: true,
  projects: [
    { ...shared, displayName: 'devnet', roots: ['<rootDir>/test'], testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/test/realNode/'] },
    ...realNodeProject(),
  ],
};
