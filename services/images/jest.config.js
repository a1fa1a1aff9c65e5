/** @type {import('jest').Config} */
module.exports = {
  displayName: 'images',
  testEnvironment: 'node',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // One migrated embedded database, copied per test file (see packages/kit/src/testing/test-database.ts), and
  // one S3-protocol server on loopback with a bucket per test file (test/support/s3-server.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
};
