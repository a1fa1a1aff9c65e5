/** An expected failure: carries the HTTP status (= error.code) and the envelope message. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const messages = {
  invalidKey: '无效的API密钥',
  disabledKey: 'API密钥已禁用',
  notFound: '资源不存在',
  tooManyRequests: '请求过于频繁',
  methodNotAllowed: '不支持的请求方法',
  requestTimeout: '请求超时',
  internal: '服务器内部错误',
  badParameter: (what: string) => `参数错误: ${what}`,
} as const;

export const badParameter = (what: string) => new AppError(400, messages.badParameter(what));
export const notFound = () => new AppError(404, messages.notFound);
