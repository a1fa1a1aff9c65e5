import type { Request } from 'express';
import type { MessageKey } from '../errors/messages';

/**
 * The opt-in `http_errors=1` (query): refusals keep their envelope but carry the HTTP status that
 * says what went wrong, so clients that only read a body on a non-2xx answer (ShareX's
 * ErrorMessage, PicGo) show the reason. Without it a refusal is HTTP 200, as the contract has it.
 */
export function wantsHttpErrors(req: Request): boolean {
  const flag = req.query.http_errors;
  return flag === '1' || flag === 'true';
}

/** The status of a refusal under the opt-in; a key not listed is a bad request (400). */
const REFUSAL_STATUS: Partial<Record<MessageKey, number>> = {
  notLoggedIn: 401,
  invalidCredentials: 401,
  signInRequired: 403,
  forbidden: 403,
  accountDisabled: 403,
  registrationClosed: 403,
  uploadsBanned: 403,
  settingFixedByEnv: 409,
  wrongPassword: 403,
  // As Google Drive and S3 answer a user over their storage quota: the request is fine, the account may not store more.
  quotaExceeded: 403,
  fileTooLarge: 413,
  tooManyPixels: 413,
  unsupportedType: 415,
  heicUnsupported: 415,
  corruptImage: 422,
  imageNotFound: 404,
  categoryNotFound: 404,
  tokenNotFound: 404,
  userNotFound: 404,
  groupNotFound: 404,
  unknownAction: 404,
  categoryExists: 409,
  userNameTaken: 409,
  groupExists: 409,
  defaultCategoryLocked: 409,
  defaultGroupName: 409,
  lastAdmin: 409,
  tooManyTokens: 409,
  idempotencyInProgress: 409,
  signInThrottled: 429,
};

export function refusalStatus(key: MessageKey): number {
  return REFUSAL_STATUS[key] ?? 400;
}
