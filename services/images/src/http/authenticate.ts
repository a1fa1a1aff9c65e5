import type { Request, Response } from 'express';
import type { AuthService, Principal } from '../auth/auth-service';
import { AppError } from '../errors/app-error';
import { hashToken } from '../auth/tokens';
import { ACTIONS, fieldsOf, presentedToken, type ActionName } from './image-params';
import type { ReceivedBody, UploadReceiver } from './upload-receiver';

/**
 * Actions whose one statement confirms the credential it reads for (credential_live in the list and
 * bin pages' SQL: images/listing-repository.ts). Only these may be answered on a recalled principal.
 * A new action is not in it, and so always gets a fresh lookup.
 */
const CONFIRMS_CREDENTIAL: ReadonlySet<ActionName> = new Set(['list', 'trash']);
/** How long a looked-up principal can be recalled; each lookup starts it again. */
const RECALL_MS = 60 * 1000;
/** Principals recalled at most (all forgotten when full): one per token in use. */
const MAX_RECALLED = 10_000;
/** Longest credential worth hashing: real ones are 43 characters (as auth-service refuses longer). */
const MAX_TOKEN_LENGTH = 256;

/**
 * Where an upload's credential and file are: the service's own API reads `X-API-Token` or `?token=`,
 * else the `token` field, and the file from `file`; the compatible APIs (compat/) name their own.
 */
export interface UploadPlaces {
  headerOrQuery: { present: boolean; token: string | undefined };
  bodyTokenField: string;
  fileField: string;
  /**
   * A body token may come after the file (EasyImage's own form sends `image`, then `token`): without a
   * header or query credential the file is received up to the server's limit, and the token checked
   * after the body (the file removed with the request when it is refused). Otherwise a file part with
   * no credential before it is refused unread.
   */
  tokenAfterFile?: boolean;
}

/** The credential a compatible API's client sends as `Authorization: Bearer <token>` (or the bare token, as picgo-plugin-lankong users often paste it). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^\s*Bearer\s+(.*?)\s*$/i.exec(authorization);
  return match ? match[1] : authorization.trim();
}

/** The account area needs a signed-in session; the admin actions, an admin's. */
function requireAccess(action: ActionName, principal: Principal): void {
  const access = ACTIONS[action].access;
  if ((access === 'session' || access === 'admin') && principal.credential.kind !== 'session') throw new AppError('signInRequired', 200);
  if (access === 'admin' && !principal.user.isAdmin) throw new AppError('forbidden', 200);
}

/**
 * The one place a request's principal is found: the token's precedence (header > query > body, and a
 * present but wrong token never falls back to another), the lookup, the access check, and the recall.
 *
 * The recall: a list or bin page on a token looked up in the last minute is answered without looking
 * it up again, because its statement confirms the credential itself. Measured side by side against a
 * lookup on every page (bench:side-by-side, 100,000 images, 6 rounds): 1,307 against 902 lists/s and
 * 919 against 639 searches/s, so it stays; for uploads it saved ~2 % of their CPU and is gone
 * (docs/benchmarks.md, "Measured decisions"). A recalled principal is a guess: any refusal on it is
 * decided again with a lookup first, so the answers and their order are those of a fresh lookup.
 */
export function createAuthenticate(deps: { auth: AuthService; receiver: UploadReceiver; maxUploadBytes: number; clock: () => Date }) {
  const { auth } = deps;
  const recalled = new Map<string, { principal: Principal; until: number }>();

  async function lookUp(token: string | undefined): Promise<Principal> {
    const principal = await auth.authenticate(token);
    if (token) {
      if (recalled.size >= MAX_RECALLED) recalled.clear();
      recalled.set(hashToken(token), { principal, until: deps.clock().getTime() + RECALL_MS });
    }
    return principal;
  }

  function recall(token: string | undefined): Principal | undefined {
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    const digest = hashToken(token);
    const entry = recalled.get(digest);
    if (entry && entry.until > deps.clock().getTime()) return entry.principal;
    recalled.delete(digest);
    return undefined;
  }

  return {
    /**
     * Runs `run` for the request's principal (undefined for a public action). A multipart body's
     * fields are read after a header or query token is checked and before a body token is.
     */
    async action<T>(req: Request, res: Response, action: ActionName, run: (principal: Principal | undefined) => Promise<T>): Promise<T> {
      const headerOrQuery = presentedToken(req.get('x-api-token'), req.query.token);
      const guess = headerOrQuery.present && CONFIRMS_CREDENTIAL.has(action) ? recall(headerOrQuery.token) : undefined;
      if (guess) {
        try {
          requireAccess(action, guess);
          return await run(guess);
        } catch {
          // Decided again below, with the lookup first.
        }
      }
      const isPublic = ACTIONS[action].access === 'public';
      let principal = headerOrQuery.present && !isPublic ? await lookUp(headerOrQuery.token) : undefined;
      if (req.method === 'POST' && req.is('multipart/form-data')) await deps.receiver.fields(req, res);
      if (!isPublic) {
        principal ??= await lookUp(presentedToken(fieldsOf(req.body).token).token);
        requireAccess(action, principal);
      }
      return run(principal);
    },

    /**
     * An upload's principal and body. Without a header or query token, the body token is checked as
     * the file part starts, so it must come before the file: a file part with no credential yet is
     * refused unread (请先登录), and one after a body token is held to that user's group limit, as with
     * a header token. A body without a file part has its token checked after the body.
     */
    async upload(
      req: Request,
      res: Response,
      receipt: ReturnType<UploadReceiver['upload']>,
      places: UploadPlaces = { headerOrQuery: presentedToken(req.get('x-api-token'), req.query.token), bodyTokenField: 'token', fileField: 'file' },
    ): Promise<{ principal: Principal; body: ReceivedBody }> {
      const limitOf = (principal: Principal | undefined) => Math.min(principal?.user.maxFileSize ?? deps.maxUploadBytes, deps.maxUploadBytes);
      const { headerOrQuery, bodyTokenField } = places;
      let principal = headerOrQuery.present ? await lookUp(headerOrQuery.token) : undefined;
      const bodyCredential = async (fields: Record<string, unknown>): Promise<number> => {
        principal = await lookUp(presentedToken(fields[bodyTokenField]).token);
        return limitOf(principal);
      };
      const waitForCredential = principal || places.tokenAfterFile ? undefined : bodyCredential;
      const body = await receipt.receive(req, res, limitOf(principal), waitForCredential, places.fileField);
      principal ??= await lookUp(presentedToken(body.fields[bodyTokenField]).token);
      return { principal, body };
    },

    /**
     * The principal of a credential a compatible API read from its own place (a Bearer header, an
     * `X-API-Key`, a body field): the same lookup, for any credential of the user.
     */
    async token(presented: { token: string | undefined }): Promise<Principal> {
      return lookUp(presented.token);
    },
  };
}

export type Authenticate = ReturnType<typeof createAuthenticate>;
