// The setup file of jest.config.js's real-node project: its suites start a real node where
// test/support/devnet.ts would start the chopsticks devnet.
process.env.FASTCAR_TEST_NODE = 'real';
