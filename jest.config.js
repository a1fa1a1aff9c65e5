/** @type {import('jest').Config} */
module.exports = {
  projects: ['<rootDir>/services/images', '<rootDir>/services/tools', '<rootDir>/scripts/e2e'],
};
