import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { answerClientErrors, rawClientErrorAnswer, type ClientErrorRejection } from '@platform/kit';
import { Messages } from '../errors/messages';
import { fail } from './envelope';

function rejection(code: string | undefined): ClientErrorRejection {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', body: fail(Messages.malformedRequest) };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', body: fail(Messages.malformedRequest) };
  return { status: 400, reason: 'Bad Request', body: fail(Messages.malformedRequest) };
}

/**
 * The raw HTTP answer to a request Node's parser refused before Express saw it: the status Node
 * would have used, the envelope `{code:1,msg:"请求格式错误"}` as the body.
 */
export function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  return rawClientErrorAnswer(rejection(error.code));
}

export function installClientErrorEnvelope(server: Server, logger: Logger): void {
  answerClientErrors(server, logger, clientErrorAnswer);
}
