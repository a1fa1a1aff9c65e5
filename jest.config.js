/** @type {import('jest').Config} */
module.exports = {
  projects: ['<rootDir>/packages/kit', '<rootDir>/services/images', '<rootDir>/services/tools', '<rootDir>/scripts/e2e', '<rootDir>/services/images/web'],
  // testTimeout is a global option: jest ignores the projects' own when run from here. The longest
  // project's (e2e, which starts nginx and replicas) applies to all, so a busy machine does not
  // fail a slow hook at jest's 5 s default.
  testTimeout: 60000,
};
