import type { AccountService } from '../auth/account-service';
import type { AuthService, SignedIn } from '../auth/auth-service';
import { Messages } from '../errors/messages';
import type { ActionHandler } from './actions';
import { bodyOrQuery, bodyText, parseId, parseTokenName, parseUploadClient } from './image-params';

/** Sign-in, registration and the account area's actions (the routes check who may call them). */
export function createAccountActions(deps: { auth: AuthService; account: AccountService; formatTime: (date: Date) => string; timeZone: string }) {
  const { auth, account } = deps;
  const session = (signedIn: SignedIn) => ({
    token: signedIn.token,
    expire_time: deps.formatTime(signedIn.expiresAt),
    user: { id: signedIn.user.id, username: signedIn.user.name, is_admin: signedIn.user.isAdmin },
    // The zone of every time the API answers, so that a client can show them in its own.
    time_zone: deps.timeZone,
  });

  return {
    features: async () => ({ message: Messages.ok, data: await auth.features() }),
    login: async ({ body, address }) => ({
      message: Messages.loggedIn,
      data: session(await auth.signIn({ name: bodyText(body, 'username'), password: bodyText(body, 'password'), address })),
    }),
    register: async ({ body, address }) => ({
      message: Messages.registered,
      data: session(await auth.register({ name: bodyText(body, 'username'), password: bodyText(body, 'password'), address })),
    }),
    logout: async ({ principal }) => {
      await auth.signOut(principal);
      return { message: Messages.loggedOut };
    },
    token: async ({ principal }) => ({ message: Messages.ok, data: await account.accountToken(principal) }),
    reset_token: async ({ principal }) => ({ message: Messages.tokenReset, data: await account.resetAccountToken(principal) }),
    tokens: async ({ principal }) => ({ message: Messages.ok, data: await account.listNamedTokens(principal) }),
    create_token: async ({ principal, body, query }) => ({
      message: Messages.tokenCreated,
      data: await account.createNamedToken(principal, parseTokenName(bodyOrQuery(body, query, 'name'))),
    }),
    revoke_token: async ({ principal, body, query }) => {
      await account.revokeNamedToken(principal, parseId(bodyOrQuery(body, query, 'id')));
      return { message: Messages.tokenRevoked };
    },
    change_password: async ({ principal, body }) => {
      await account.changePassword(principal, bodyText(body, 'password'), bodyText(body, 'new_password'));
      return { message: Messages.passwordChanged };
    },
    client_config: async ({ principal, body, query, now }) => {
      const client = parseUploadClient(bodyOrQuery(body, query, 'client'));
      const config = await account.uploadClientConfig(principal, client, now);
      // Both are JSON documents (a .sxcu file is JSON too).
      return { download: { ...config, contentType: 'application/json; charset=utf-8' } };
    },
  } satisfies Record<string, ActionHandler>;
}
