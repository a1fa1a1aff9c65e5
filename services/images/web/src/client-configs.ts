/**
 * The settings each upload client needs, for this server and one named token. Built here from the
 * page's own origin (the app and the API share it); each client's field names are those its settings
 * screen shows (docs/clients.md says where each one is).
 */
export type ClientName = 'picgoLsky' | 'piclistLsky' | 'picgoWeb' | 'upic' | 'flameshot' | 'cli';

export const CLIENTS: readonly ClientName[] = ['picgoLsky', 'piclistLsky', 'picgoWeb', 'upic', 'flameshot', 'cli'];

/** A setting as the client's screen names it, and its value. */
export interface Setting {
  field: string;
  value: string;
}

export interface ClientSettings {
  /** The fields to copy one by one. */
  settings: Setting[];
  /** The whole thing to paste at once (a JSON block of the client's config file, or a command). */
  block: string;
  /** What the block is: a config file's JSON, or a shell command. */
  blockKind: 'json' | 'shell';
}

/** A single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function clientSettings(client: ClientName, origin: string, token: string): ClientSettings {
  const lskyServer = `${origin}/compat/lsky`;
  const uploadUrl = `${origin}/api/image.php?action=upload`;
  switch (client) {
    case 'picgoLsky': {
      // picgo-plugin-lankong: "Server" without a trailing slash, the token as Lsky shows it ("Bearer …").
      const lankong = { lskyProVersion: 'V2', server: lskyServer, token: `Bearer ${token}`, strategyId: '', ignoreCertErr: false, syncDelete: true };
      return {
        settings: [
          { field: 'Lsky Pro Version', value: 'V2' },
          { field: 'Server', value: lskyServer },
          { field: 'Auth token', value: `Bearer ${token}` },
          { field: 'Strategy ID', value: '' },
        ],
        block: JSON.stringify({ picBed: { uploader: 'lankong', current: 'lankong', lankong }, picgoPlugins: { 'picgo-plugin-lankong': true } }, null, 2),
        blockKind: 'json',
      };
    }
    case 'piclistLsky': {
      const lskyplist = { version: 'V2', host: lskyServer, token: `Bearer ${token}`, strategyId: '', albumId: '', permission: 1 };
      return {
        settings: [
          { field: 'Version', value: 'V2' },
          { field: 'Host', value: lskyServer },
          { field: 'Token', value: `Bearer ${token}` },
          { field: 'Album ID', value: '' },
        ],
        block: JSON.stringify({ picBed: { uploader: 'lskyplist', current: 'lskyplist', lskyplist } }, null, 2),
        blockKind: 'json',
      };
    }
    case 'picgoWeb': {
      const webUploader = { url: uploadUrl, paramName: 'file', jsonPath: 'data.url', customHeader: JSON.stringify({ 'X-API-Token': token }), customBody: '' };
      return {
        settings: [
          { field: 'API URL', value: uploadUrl },
          { field: 'POST参数名 / paramName', value: 'file' },
          { field: 'JSON路径 / jsonPath', value: 'data.url' },
          { field: '自定义请求头 / customHeader', value: webUploader.customHeader },
        ],
        block: JSON.stringify({ picBed: { uploader: 'web-uploader', current: 'web-uploader', 'web-uploader': webUploader }, picgoPlugins: { 'picgo-plugin-web-uploader': true } }, null, 2),
        blockKind: 'json',
      };
    }
    case 'upic': {
      // uPic's custom host sends multipart only when a Content-Type header says form-data.
      const headers = JSON.stringify([
        { key: 'X-API-Token', value: token },
        { key: 'Content-Type', value: 'multipart/form-data' },
      ]);
      return {
        settings: [
          { field: 'API URL', value: uploadUrl },
          { field: 'Method', value: 'POST' },
          { field: 'File Field', value: 'file' },
          { field: 'Headers', value: headers },
          { field: 'URL Path', value: '["data", "url"]' },
        ],
        block: JSON.stringify({ url: uploadUrl, method: 'POST', field: 'file', headers, bodys: '[]', resultPath: '["data", "url"]', domain: '', suffix: '', useBase64: false }, null, 2),
        blockKind: 'json',
      };
    }
    case 'flameshot': {
      const command = `flameshot gui -r | curl -s -H ${shellQuote(`X-API-Token: ${token}`)} -F 'file=@-;filename=screenshot.png' ${shellQuote(uploadUrl)} | jq -r '.data.url // .msg'`;
      return { settings: [], block: command, blockKind: 'shell' };
    }
    case 'cli': {
      const config = JSON.stringify({ server: origin, token }, null, 2);
      return {
        settings: [
          { field: '~/.config/image-uploader/config.json', value: config },
          { field: 'Typora → Image Uploader → Custom Command', value: 'upload' },
        ],
        block: `mkdir -p ~/.config/image-uploader && cat > ~/.config/image-uploader/config.json <<'EOF'\n${config}\nEOF`,
        blockKind: 'shell',
      };
    }
  }
}
