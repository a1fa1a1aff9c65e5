/** Every error message the service sends, by key; openapi.yaml documents the same set of texts. */
export const Messages = {
  invalidKey: '无效的API密钥',
  disabledKey: 'API密钥已禁用',
  notFound: '资源不存在',
  tooManyRequests: '请求过于频繁',
  methodNotAllowed: '不支持的请求方法',
  requestTimeout: '请求超时',
  internalError: '服务器内部错误',
  badParameter: (what: string) => `参数错误: ${what}`,
} as const;

/** A key of the message table: what errors carry and code compares (a typo does not compile). */
export type MessageKey = keyof typeof Messages;

/** The text a client reads for a key; `detail` says what was wrong, for the keys whose text takes it. */
export function messageText(key: MessageKey, detail = ''): string {
  const message = Messages[key];
  return typeof message === 'string' ? message : message(detail);
}
