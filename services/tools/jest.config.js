/** @type {import('jest').Config} */
module.exports = {
  displayName: 'tools',
  testEnvironment: 'node',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // One migrated embedded database, copied per test file (see packages/kit/src/testing/test-database.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
};
