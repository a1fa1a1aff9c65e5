import { applyV1Rewrites, loadV1Rewrites, parseV1Rewrites } from '../lib/v1-rewrites';

describe('proxy/v1-rewrites.conf applied in Node (embedded mode)', () => {
  const rules = loadV1Rewrites();

  test.each([
    ['/api/v1/tools', '/api/index.php?action=tools'],
    ['/api/v1/tools/', '/api/index.php?action=tools'],
    ['/api/v1/tools?page=2&limit=5', '/api/index.php?action=tools&page=2&limit=5'],
    ['/api/v1/tools/search?q=jietu', '/api/index.php?action=search&q=jietu'],
    ['/api/v1/tools/vscode', '/api/index.php?action=tool&slug=vscode'],
    ['/api/v1/tools/vscode?api_key=k', '/api/index.php?action=tool&slug=vscode&api_key=k'],
    ['/api/v1/tools/%E6%88%AA%E5%9B%BE', '/api/index.php?action=tool&slug=%E6%88%AA%E5%9B%BE'],
    ['/api/v1/tools/a%26b', '/api/index.php?action=tool&slug=a%26b'],
    ['/api/v1/categories', '/api/index.php?action=categories'],
    ['/api/v1/categories/3', '/api/index.php?action=category&id=3'],
    ['/api/v1/categories/abc', '/api/index.php?action=category&id=abc'],
    ['/api/v1/stats', '/api/index.php?action=stats'],
    ['/api/v1/miniapp/ads', '/api/index.php?action=miniapp&type=ads'],
  ])('when %s is asked, then it becomes %s', (from, to) => {
    expect(applyV1Rewrites(rules, from)).toBe(to);
  });

  test.each(['/api/v1/', '/api/v1/nope', '/api/v1/tools/a/b', '/api/v1/miniapp', '/api/v1/tools/%E0%A4%A'])(
    'when %s is asked, then no rule matches',
    (url) => {
      expect(applyV1Rewrites(rules, url)).toBeNull();
    },
  );

  test('when the file holds a line that is not a plain rewrite, then loading fails with its line number', () => {
    expect(() => parseV1Rewrites('# ok\nrewrite ^/a$ /b last;\nreturn 404;\n', 'x.conf')).toThrow(
      'x.conf:3: expected "rewrite REGEX REPLACEMENT last;", got: return 404;',
    );
  });
});
