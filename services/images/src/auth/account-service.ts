import { AppError } from '../errors/app-error';
import { UserAdminError, type UserAdmin } from '../users/user-admin';
import { userAdminRefusal } from '../users/user-admin-refusal';
import type { AuthService, Principal } from './auth-service';
import type { CredentialsRepository } from './credentials-repository';
import { generateToken, hashToken } from './tokens';

export const MAX_NAMED_TOKENS = 50;

export type UploadClient = 'sharex' | 'picgo';

/**
 * The account area: the user's own credentials and password. Every operation here needs a signed-in
 * session (a token could otherwise read or replace the token it was derived from); the routes check
 * that before calling.
 */
export function createAccountService(deps: {
  auth: Pick<AuthService, 'checkOwnPassword'>;
  credentials: CredentialsRepository;
  userAdmin: UserAdmin;
  formatTime: (date: Date) => string;
  publicBaseUrl: string;
}) {
  const { credentials, userAdmin, formatTime } = deps;

  async function createNamedToken(principal: Pick<Principal, 'user'>, name: string) {
    const token = generateToken();
    const created = await credentials.createNamed(principal.user.id, name, hashToken(token), MAX_NAMED_TOKENS);
    if (!created) throw new AppError('tooManyTokens', 200);
    return { id: created.id, name, token, create_time: formatTime(created.createdAt) };
  }

  return {
    /** The account token as the account area shows it; null when it was made before tokens could be shown (reset it to see one). */
    async accountToken(principal: Principal) {
      const { token, createdAt } = await userAdmin.accountToken(principal.user.id);
      return { token, create_time: createdAt ? formatTime(createdAt) : null };
    },

    /** A new account token; the old one stops at once, everywhere. */
    async resetAccountToken(principal: Principal) {
      const { token, credential } = await userAdmin.resetToken(principal.user.id);
      return { token, create_time: formatTime(credential.createdAt) };
    },

    async listNamedTokens(principal: Principal) {
      const rows = await credentials.listNamed(principal.user.id);
      return {
        list: rows.map((row) => ({
          id: row.id,
          name: row.name,
          create_time: formatTime(row.createdAt),
          last_used_time: row.lastUsedAt ? formatTime(row.lastUsedAt) : null,
        })),
      };
    },

    /** A named token (one per client, e.g. a script); its value is shown this once. */
    createNamedToken,

    async revokeNamedToken(principal: Principal, id: number): Promise<void> {
      if (!(await credentials.deleteNamed(principal.user.id, id))) throw new AppError('tokenNotFound', 200);
    },

    /**
     * Checks the current password (counted like a sign-in's check); the new one applies at once and
     * every other session ends.
     */
    async changePassword(principal: Principal, current: string, next: string): Promise<void> {
      await deps.auth.checkOwnPassword(principal.user, current);
      try {
        await userAdmin.setPassword(principal.user.id, next, { keepSessionId: principal.credential.id });
      } catch (error) {
        if (error instanceof UserAdminError) throw userAdminRefusal(error);
        throw error;
      }
    },

    /**
     * A ready configuration for ShareX (.sxcu) or PicGo (web-uploader plugin), with a named token of
     * its own (so it can be revoked without touching anything else). Its file name and content.
     */
    async uploadClientConfig(principal: Principal, client: UploadClient, now: Date): Promise<{ fileName: string; content: string }> {
      const host = new URL(deps.publicBaseUrl).host;
      const label = `${client === 'sharex' ? 'ShareX' : 'PicGo'} ${formatTime(now).slice(0, 16)}`;
      const { token } = await createNamedToken(principal, label);
      const uploadUrl = `${deps.publicBaseUrl}/api/image.php?action=upload`;
      if (client === 'sharex') {
        const config = {
          Version: '17.0.0',
          Name: `${host} 图床 (${principal.user.name})`,
          // Images only: the service refuses anything else, so ShareX must not offer it for files.
          DestinationType: 'ImageUploader',
          RequestMethod: 'POST',
          // ShareX reads ErrorMessage only from a non-2xx answer: refusals must carry their status.
          RequestURL: `${uploadUrl}&http_errors=1`,
          Headers: { 'X-API-Token': token },
          Body: 'MultipartFormData',
          FileFormName: 'file',
          URL: '{json:data.url}',
          ThumbnailURL: '{json:data.thumb_url}',
          DeletionURL: '{json:data.links.delete}',
          ErrorMessage: '{json:msg}',
        };
        return { fileName: `${host} (${principal.user.name}).sxcu`, content: `${JSON.stringify(config, null, 2)}\n` };
      }
      const config = {
        picBed: {
          uploader: 'web-uploader',
          current: 'web-uploader',
          'web-uploader': {
            url: uploadUrl,
            paramName: 'file',
            jsonPath: 'data.url',
            customHeader: JSON.stringify({ 'X-API-Token': token }),
            customBody: '',
          },
        },
        picgoPlugins: { 'picgo-plugin-web-uploader': true },
      };
      return { fileName: `picgo-${host}.json`, content: `${JSON.stringify(config, null, 2)}\n` };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
