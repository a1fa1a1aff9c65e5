/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform',
  testEnvironment: 'node',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.test.ts'],
  // Builds the web app (/app/) when it is missing or stale.
  globalSetup: '<rootDir>/global-setup.ts',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  testTimeout: 60000,
};
