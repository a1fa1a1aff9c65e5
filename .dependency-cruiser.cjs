/**
 * Import rules for the monorepo (`npm run lint:deps`). Each service is a tower of its own: no file
 * loops inside it, no service imports the other, and the shared kit under packages/ never imports a
 * service. Loops between a service's top-level src folders (src/auth ⇄ src/users) are checked by
 * scripts/check-dependencies.ts, because dependency-cruiser's `circular` rule only sees file cycles.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      comment: 'A cycle between files of a service: each file should be readable (and testable) without the ones it is imported by.',
      severity: 'error',
      from: { path: '^(services|packages)/' },
      to: { circular: true },
    },
    {
      name: 'images-not-from-tools',
      comment: 'The services are independent: neither imports the other (DESIGN.md: two towers).',
      severity: 'error',
      from: { path: '^services/tools/' },
      to: { path: '^services/images/' },
    },
    {
      name: 'tools-not-from-images',
      comment: 'The services are independent: neither imports the other (DESIGN.md: two towers).',
      severity: 'error',
      // The web app's browser tests boot the whole platform as `npm start` does (both services behind
      // the front door), so their one harness file is the exception, as scripts/ is.
      from: { path: '^services/images/', pathNot: '^services/images/web/test/support/web-platform\\.ts$' },
      to: { path: '^services/tools/' },
    },
    {
      name: 'kit-imports-no-service',
      comment: 'The shared kit under packages/ is glue only: what differs per service is passed in, never imported.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing would hide a dependency from every rule above.',
      severity: 'error',
      from: { path: '^(services|packages)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports count: a loop through types is still a loop a reader has to untangle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
