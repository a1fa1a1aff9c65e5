/**
 * The image API as the web app uses it: `/api/image.php?action=<name>` on this origin, the session
 * credential in the `X-API-Token` header (never in a URL), every answer `{code, msg, data}`.
 */

export interface SessionUser {
  id: number;
  username: string;
  is_admin: boolean;
}

export interface SignedIn {
  token: string;
  expire_time: string;
  user: SessionUser;
  /** The zone of the API's times (absent in a session kept from before the service said). */
  time_zone?: string;
}

export interface ImageLinks {
  url: string;
  thumbnail: string;
  markdown: string;
  html: string;
  bbcode: string;
  delete: string;
}

export interface UploadResult {
  id: number;
  url: string;
  thumb_url: string;
  original_name: string;
  file_size: number;
  width: number;
  height: number;
  links: ImageLinks;
}

export interface ImageItem {
  id: number;
  original_name: string;
  url: string;
  thumb_url: string;
  file_size: number;
  create_time: string;
  links: ImageLinks;
  /** When the image moves into the bin by itself (ISO 8601, UTC); null: never. */
  expires_at?: string | null;
}

/** An album (category) share link, `/s/<token>`. */
export interface ShareLink {
  id: number;
  category_id: number;
  category_name: string;
  url: string;
  has_password: boolean;
  expire_time: string | null;
  max_views: number | null;
  view_count: number;
  state: 'active' | 'revoked' | 'expired' | 'used_up';
  create_time: string;
}

/** Whether an image's public page (`/p/<key>`, with link-preview tags) is on. */
export interface ImagePage {
  id: number;
  public: boolean;
  /** On for every image of its album (category). */
  album_public: boolean;
  page_url: string | null;
}

export interface BinItem {
  id: number;
  original_name: string;
  /** A thumbnail link signed for this binning (dead after a restore or purge). */
  thumb_url: string;
  file_size: number;
  create_time: string;
  delete_time: string;
  purge_time: string;
}

export interface Page<T> {
  list: T[];
  total: number;
  /** A keyword search of a common word: `total` is an estimate. */
  total_estimated?: true;
  page: number;
  limit: number;
}

export interface Category {
  id: number;
  name: string;
  is_default: boolean;
  image_count: number;
  /** Every image of it has its public page on. */
  pages_public: boolean;
  create_time: string;
}

export interface Profile {
  username: string;
  is_admin: boolean;
  group: string;
  max_file_size: number;
  quota_bytes: number;
  used_bytes: number;
  free_bytes: number;
  recycle_retention_days: number;
}

export interface AccountToken {
  token: string | null;
  create_time: string | null;
}

export interface NamedToken {
  id: number;
  name: string;
  create_time: string;
  last_used_time: string | null;
}

export interface BulkOutcome {
  results: Array<{ id: number; ok: boolean; msg: string }>;
  succeeded: number;
  failed: number;
}

export interface AdminUser {
  id: number;
  username: string;
  group: string;
  is_admin: boolean;
  disabled: boolean;
  uploads_banned: boolean;
  used_bytes: number;
  quota_bytes: number;
  max_file_size: number;
  create_time: string;
}

export interface AdminImage {
  id: number;
  original_name: string;
  user_id: number;
  username: string;
  format: string;
  mime_type: string;
  file_size: number;
  width: number;
  height: number;
  status: 'stored' | 'binned';
  url: string | null;
  thumb_url: string;
  create_time: string;
}

/** A type, not an interface: it is sent as request parameters. */
export type AdminImageFilter = {
  username?: string;
  type?: string;
  status?: 'stored' | 'binned';
  min_size?: number;
  max_size?: number;
  from?: string;
  to?: string;
};

/** The site settings in effect; `fixed_by_env` names the variable that fixes each one (null: editable). */
export interface SiteSettings {
  site_name: string | null;
  registration_enabled: boolean;
  default_group: string;
  fixed_by_env: { site_name: string | null; registration_enabled: string | null; default_group: string | null };
}

export interface Group {
  id: number;
  name: string;
  max_file_size: number;
  quota_bytes: number;
  /** Whether stored originals keep their metadata (GPS, camera) instead of having it removed. */
  keep_metadata: boolean;
  user_count: number;
}

/** A refusal by the service (`code: 1`), or no usable answer at all (`network`). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'network',
  ) {
    super(message);
  }
}

/** The service's answer when a credential is missing, wrong, revoked or expired. */
export const SIGNED_OUT_MESSAGE = '请先登录';
/** Said by the client itself when the answer was unreadable (a proxy's error page, a cut-off answer). */
export const UNREACHABLE_MESSAGE = '服务暂时不可用，请稍后重试';
/** Said by the client itself when no answer came at all: the browser is offline or the network failed. */
export const CONNECTION_LOST_MESSAGE = '网络连接已断开，请检查网络后重试';

type Params = Record<string, string | number | boolean | number[] | undefined>;

function encode(params: Params): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    form.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return form;
}

interface Envelope<T> {
  code: number;
  msg: string;
  data?: T;
}

function readEnvelope<T>(status: number, text: string): Envelope<T> {
  try {
    const parsed = JSON.parse(text) as Envelope<T>;
    if (parsed && typeof parsed.code === 'number' && typeof parsed.msg === 'string') return parsed;
  } catch {
    // not JSON: a proxy's page, a cut-off answer
  }
  throw new ApiError(status >= 500 || status === 0 ? UNREACHABLE_MESSAGE : `HTTP ${status}`, 'network');
}

export interface UploadHandle {
  result: Promise<UploadResult>;
  abort(): void;
}

export interface ApiClientOptions {
  /** The session credential, or null when signed out. */
  token(): string | null;
  /** Called when the service no longer accepts the credential (expired, signed out elsewhere, token reset). */
  onSignedOut(): void;
  /** Called for each request: whether an answer came (false: no answer at all), and whether it was a GET (a page's data). */
  onConnection?(answered: boolean, load: boolean): void;
}

export function createApiClient(options: ApiClientOptions) {
  const endpoint = (action: string, query?: Params) => {
    const search = encode({ action, ...query });
    return `/api/image.php?${search.toString()}`;
  };
  const headers = (): Record<string, string> => {
    const token = options.token();
    return token ? { 'X-API-Token': token } : {};
  };

  /** No answer at all: the connection is lost (not the service failing). */
  const lost = (load: boolean) => {
    options.onConnection?.(false, load);
    return new ApiError(CONNECTION_LOST_MESSAGE, 'network');
  };
  const answered = () => options.onConnection?.(true, false);

  function settle<T>(envelope: Envelope<T>, sentToken: string | null): { msg: string; data: T } {
    if (envelope.code !== 0) {
      if (envelope.msg === SIGNED_OUT_MESSAGE && sentToken !== null) options.onSignedOut();
      throw new ApiError(envelope.msg, 'refused');
    }
    return { msg: envelope.msg, data: envelope.data as T };
  }

  async function send<T>(method: 'GET' | 'POST', action: string, params: Params = {}): Promise<{ msg: string; data: T }> {
    const sentToken = options.token();
    let response: Response;
    try {
      response =
        method === 'GET'
          ? await fetch(endpoint(action, params), { headers: headers(), cache: 'no-store' })
          : await fetch(endpoint(action), { method: 'POST', headers: { ...headers(), 'Content-Type': 'application/x-www-form-urlencoded' }, body: encode(params) });
    } catch {
      throw lost(method === 'GET');
    }
    answered();
    return settle(readEnvelope<T>(response.status, await response.text()), sentToken);
  }

  const get = <T>(action: string, params?: Params) => send<T>('GET', action, params).then((answer) => answer.data);
  const post = <T>(action: string, params?: Params) => send<T>('POST', action, params);

  return {
    features: () => get<{ registration: boolean; site_name: string | null }>('features'),
    login: (username: string, password: string) => post<SignedIn>('login', { username, password }).then((a) => a.data),
    register: (username: string, password: string) => post<SignedIn>('register', { username, password }).then((a) => a.data),
    logout: () => post<undefined>('logout'),

    // The gallery shows an item's links (its detail view): it asks for them with each page.
    list: (query: { page: number; limit: number; keyword?: string; category_id?: number }) => get<Page<ImageItem>>('list', { ...query, links: 1 }),
    trash: (query: { page: number; limit: number }) => get<Page<BinItem>>('trash', query),
    deleteMany: (ids: number[]) => post<BulkOutcome>('delete', { ids }).then((a) => a.data),
    restoreMany: (ids: number[]) => post<BulkOutcome>('restore', { ids }).then((a) => a.data),
    purgeMany: (ids: number[]) => post<BulkOutcome>('purge', { ids }).then((a) => a.data),
    rename: (id: number, name: string) => post<ImageItem>('rename', { id, name }).then((a) => a.data),
    /** Sets (an ISO time) or clears (null) when the image moves into the bin by itself. */
    setExpiry: (id: number, expiresAt: string | null) => post<ImageItem>('set_expiry', { id, expires_at: expiresAt ?? '' }).then((a) => a.data),
    move: (ids: number[], categoryId: number) => post<BulkOutcome>('move', { ids, category_id: categoryId }).then((a) => a.data),

    categories: () => get<{ list: Category[] }>('categories').then((data) => data.list),
    createCategory: (name: string) => post<{ id: number; name: string }>('create_category', { name }).then((a) => a.data),
    renameCategory: (id: number, name: string) => post<{ id: number; name: string }>('rename_category', { id, name }),
    deleteCategory: (id: number) => post<{ id: number; moved: number }>('delete_category', { id }).then((a) => a.data),

    shareLinks: (categoryId: number) => get<{ list: ShareLink[] }>('share_links', { category_id: categoryId }).then((data) => data.list),
    createShareLink: (input: { category_id: number; password?: string; expires_in_hours?: number; max_views?: number }) => post<ShareLink>('create_share_link', input).then((a) => a.data),
    revokeShareLink: (id: number) => post<ShareLink>('revoke_share_link', { id }).then((a) => a.data),
    imagePage: (id: number) => get<ImagePage>('image_page', { id }),
    setImagePage: (id: number, on: boolean) => post<ImagePage>('set_image_page', { id, public: on ? 1 : 0 }).then((a) => a.data),
    setAlbumPages: (categoryId: number, on: boolean) => post<{ category_id: number; pages_public: boolean }>('set_album_pages', { category_id: categoryId, public: on ? 1 : 0 }).then((a) => a.data),

    profile: () => get<Profile>('profile'),
    accountToken: () => get<AccountToken>('token'),
    resetToken: () => post<{ token: string; create_time: string }>('reset_token').then((a) => a.data),
    namedTokens: () => get<{ list: NamedToken[] }>('tokens').then((data) => data.list),
    createNamedToken: (name: string) => post<{ id: number; name: string; token: string; create_time: string }>('create_token', { name }).then((a) => a.data),
    revokeNamedToken: (id: number) => post<undefined>('revoke_token', { id }),
    changePassword: (password: string, newPassword: string) => post<undefined>('change_password', { password, new_password: newPassword }),

    /** The ShareX (.sxcu) or PicGo configuration file: its name and bytes (the service makes a named token for it). */
    async clientConfig(client: 'sharex' | 'picgo'): Promise<{ fileName: string; blob: Blob }> {
      const sentToken = options.token();
      let response: Response;
      try {
        response = await fetch(endpoint('client_config'), {
          method: 'POST',
          headers: { ...headers(), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: encode({ client }),
        });
      } catch {
        throw lost(false);
      }
      answered();
      const disposition = response.headers.get('Content-Disposition') ?? '';
      if (!response.ok || !/attachment/i.test(disposition)) {
        settle(readEnvelope(response.status, await response.text()), sentToken);
        throw new ApiError(UNREACHABLE_MESSAGE, 'network');
      }
      const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
      const plain = /filename="([^"]+)"/i.exec(disposition);
      const fileName = encoded ? decodeURIComponent(encoded[1]!) : plain ? plain[1]! : client === 'sharex' ? 'uploader.sxcu' : 'picgo.json';
      return { fileName, blob: await response.blob() };
    },

    adminUsers: (query: { page: number; limit: number; keyword?: string }) => get<Page<AdminUser>>('admin_users', query),
    adminCreateUser: (input: { username: string; password: string; group_id?: number; is_admin?: boolean }) => post<AdminUser>('admin_create_user', input).then((a) => a.data),
    adminUpdateUser: (id: number, changes: { group_id?: number; is_admin?: boolean; disabled?: boolean; password?: string }) =>
      post<AdminUser>('admin_update_user', { id, ...changes }).then((a) => a.data),
    adminBanUploads: (id: number, banned: boolean) => post<AdminUser>('admin_ban_uploads', { id, banned }).then((a) => a.data),
    adminImages: (query: { page: number; limit: number } & AdminImageFilter) => get<Page<AdminImage>>('admin_images', query),
    adminBinImages: (ids: number[]) => post<BulkOutcome>('admin_bin_images', { ids }).then((a) => a.data),
    adminPurgeImages: (ids: number[]) => post<BulkOutcome>('admin_purge_images', { ids }).then((a) => a.data),
    adminSettings: () => get<SiteSettings>('admin_settings'),
    adminUpdateSettings: (changes: { site_name?: string; registration_enabled?: boolean; default_group_id?: number }) =>
      post<SiteSettings>('admin_update_settings', changes).then((a) => a.data),
    adminGroups: () => get<{ list: Group[] }>('admin_groups').then((data) => data.list),
    adminCreateGroup: (input: { name: string; max_file_size: number; quota_bytes: number; keep_metadata: boolean }) => post<Group>('admin_create_group', input).then((a) => a.data),
    adminUpdateGroup: (id: number, changes: { name?: string; max_file_size?: number; quota_bytes?: number; keep_metadata?: boolean }) => post<Group>('admin_update_group', { id, ...changes }).then((a) => a.data),

    /**
     * One file as one multipart request, through XMLHttpRequest for its upload progress. The
     * Idempotency-Key makes a retry of the same file return the first result instead of a copy.
     */
    upload(file: File, input: { categoryId?: number; expiresIn?: number; idempotencyKey: string; onProgress(sent: number, total: number): void }): UploadHandle {
      const xhr = new XMLHttpRequest();
      const sentToken = options.token();
      const result = new Promise<UploadResult>((resolve, reject) => {
        xhr.open('POST', endpoint('upload'));
        for (const [name, value] of Object.entries(headers())) xhr.setRequestHeader(name, value);
        xhr.setRequestHeader('Idempotency-Key', input.idempotencyKey);
        xhr.upload.onprogress = (event) => {
          if (event.lengthComputable) input.onProgress(event.loaded, event.total);
        };
        xhr.onload = () => {
          answered();
          try {
            resolve(settle(readEnvelope<UploadResult>(xhr.status, xhr.responseText), sentToken).data);
          } catch (error) {
            reject(error);
          }
        };
        xhr.onerror = () => reject(lost(false));
        xhr.onabort = () => reject(new ApiError('aborted', 'network'));
        const form = new FormData();
        if (input.categoryId !== undefined) form.append('category_id', String(input.categoryId));
        if (input.expiresIn !== undefined) form.append('expires_in', String(input.expiresIn));
        form.append('file', file, file.name);
        xhr.send(form);
      });
      return { result, abort: () => xhr.abort() };
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
