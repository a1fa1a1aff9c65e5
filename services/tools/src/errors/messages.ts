import { AppError } from './app-error';

/** Every error message the service sends; openapi.yaml documents the same set. */
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

export const badParameter = (what: string) => new AppError(Messages.badParameter(what), 400);
export const notFound = () => new AppError(Messages.notFound, 404);
