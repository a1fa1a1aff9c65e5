/**
 * Tests that need real servers run only when the URL is set. With REQUIRE_REAL_SERVICES=1 (CI) a missing URL
 * turns the would-be skip into a failing test.
 */
export function describeWithRealServer(variable: 'TEST_REDIS_URL' | 'TEST_DATABASE_URL', name: string, body: () => void): void {
  if (process.env[variable]) {
    describe(name, body);
  } else if (process.env.REQUIRE_REAL_SERVICES === '1') {
    describe(name, () => {
      it(`needs ${variable} (REQUIRE_REAL_SERVICES=1)`, () => {
        throw new Error(`${variable} is not set but REQUIRE_REAL_SERVICES=1: this test must run against a real server`);
      });
    });
  } else {
    describe.skip(`${name} (needs ${variable})`, body);
  }
}
