import { AppError } from '../errors/app-error';
import type { MessageKey } from '../errors/messages';
import type { UserAdminError } from './user-admin';

/**
 * A refusal of the user-management rules as the API's error. It lives beside the rules, so the
 * account flows (auth/) and the admin API (users/) share it without users/ importing auth/.
 */
export function userAdminRefusal(error: UserAdminError): AppError {
  const refusals: Record<UserAdminError['failure'], MessageKey> = {
    'name-invalid': 'userNameInvalid',
    'name-taken': 'userNameTaken',
    'user-missing': 'userNotFound',
    'group-missing': 'groupNotFound',
    'password-unacceptable': 'passwordUnacceptable',
    'group-name-invalid': 'groupNameInvalid',
    'group-name-taken': 'groupExists',
    'group-limit-invalid': 'groupLimitInvalid',
    'default-group-name': 'defaultGroupName',
    'last-admin': 'lastAdmin',
  };
  return new AppError(refusals[error.failure], 200);
}
