import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { answerClientErrors, rawClientErrorAnswer } from '@platform/kit';
import { Messages } from '../errors/messages';
import { fail } from './envelope';

function rejection(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: Messages.badParameter('请求头过大') };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: Messages.requestTimeout };
  if (code === 'HPE_INVALID_URL') return { status: 400, reason: 'Bad Request', message: Messages.badParameter('URL 含有未编码的字符（中文等须先做 URL 编码）') };
  return { status: 400, reason: 'Bad Request', message: Messages.badParameter('请求格式无效') };
}

/**
 * The raw HTTP answer to a request Node's parser refused before Express saw it (a raw, not
 * percent-encoded `截图` in the query, headers over 16 KB, a malformed request line): the status
 * Node would have used, the error envelope as the body.
 */
export function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  const { status, reason, message } = rejection(error.code);
  return rawClientErrorAnswer({ status, reason, body: fail(status, message) });
}

export function installClientErrorEnvelope(server: Server, logger: Logger): void {
  answerClientErrors(server, logger, clientErrorAnswer);
}
