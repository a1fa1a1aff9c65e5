/** The ready-to-paste curl lines `npm start` prints: one for every operation, both URL styles. */
export interface CurlExampleInput {
  baseUrl: string;
  token: string | undefined;
  apiKey: string | undefined;
  demoImage: string;
  /** The demo user's password for the web app, when this start made it. */
  demoPassword?: string;
  /** Where an earlier start kept the demo user's password (it is printed only when made). */
  demoPasswordFile?: string;
}

export function curlExamples({ baseUrl, token, apiKey, demoImage }: CurlExampleInput): string[] {
  const t = token ?? '<API_TOKEN>';
  const k = apiKey ?? '<API_KEY>';
  const img = `${baseUrl}/api/image.php`;
  const idx = `${baseUrl}/api/index.php`;
  const v1 = `${baseUrl}/api/v1`;
  const lines = [
    '# ---- image hosting (token: X-API-Token header, or token= in query/body) ----',
    `curl -s -H 'X-API-Token: ${t}' -F 'file=@${demoImage}' '${img}?action=upload'`,
    `curl -s -H 'X-API-Token: ${t}' '${img}?action=list&page=1&limit=20'`,
    `curl -s '${img}?action=list&keyword=demo&token=${t}'`,
    '# use the id from the upload answer below (1 on a fresh start)',
    `curl -s -H 'X-API-Token: ${t}' -d 'id=1' '${img}?action=delete'`,
    `curl -s -H 'X-API-Token: ${t}' '${img}?action=trash'`,
    `curl -s -H 'X-API-Token: ${t}' -d 'id=1' '${img}?action=restore'`,
    '# purge removes an image that is in the recycle bin for good (delete it first)',
    `curl -s -H 'X-API-Token: ${t}' -d 'id=1' '${img}?action=delete'`,
    `curl -s -H 'X-API-Token: ${t}' -d 'id=1' '${img}?action=purge'`,
    `curl -s -H 'X-API-Token: ${t}' '${img}?action=categories'`,
    `curl -s -H 'X-API-Token: ${t}' --data-urlencode 'name=旅行' '${img}?action=create_category'`,
    `curl -s -H 'X-API-Token: ${t}' '${img}?action=profile'`,
    '# thumb_url and url come from the upload answer: curl -s -o thumb.webp "<thumb_url>"; curl -sI "<url>"',
    '# ---- tool directory (key: X-API-Key header, or api_key= in query) ----',
    `curl -s -H 'X-API-Key: ${k}' '${idx}?action=tools&page=1&limit=20'`,
    `curl -s -H 'X-API-Key: ${k}' '${v1}/tools?page=1&limit=20'`,
    `curl -s -H 'X-API-Key: ${k}' '${idx}?action=tool&slug=vscode'`,
    `curl -s -H 'X-API-Key: ${k}' '${v1}/tools/vscode'`,
    `curl -s '${idx}?action=search&q=%E6%88%AA%E5%9B%BE'`,
    `curl -s '${v1}/tools/search?q=jietu'`,
    `curl -s -H 'X-API-Key: ${k}' '${idx}?action=categories'`,
    `curl -s -H 'X-API-Key: ${k}' '${v1}/categories'`,
    `curl -s -H 'X-API-Key: ${k}' '${idx}?action=category&id=1'`,
    `curl -s -H 'X-API-Key: ${k}' '${v1}/categories/1'`,
    `curl -s '${idx}?action=stats&api_key=${k}'`,
    `curl -s -H 'X-API-Key: ${k}' '${v1}/stats'`,
    `curl -s '${idx}?action=miniapp&type=ads'`,
    `curl -s '${v1}/miniapp/ads'`,
  ];
  if (token === undefined || apiKey === undefined) {
    lines.push(
      '# The demo credentials were created by an earlier start and not kept (data/demo-credentials.json is missing).',
      '# Make new ones: npm run admin -w services/images -- --help ; npm run admin -w services/tools -- --help',
    );
  }
  return lines;
}

/** Where the image web app is, and who can sign in to it. */
export function webAppLine({ baseUrl, demoPassword, demoPasswordFile }: Pick<CurlExampleInput, 'baseUrl' | 'demoPassword' | 'demoPasswordFile'>): string {
  const signIn =
    demoPassword !== undefined
      ? `sign in as demo, password ${demoPassword}`
      : demoPasswordFile !== undefined
        ? `sign in as demo, with the password in ${demoPasswordFile}`
        : 'sign in with a user made by: npm run admin -- images create-user <name> --password-stdin';
  return `Image web app: ${baseUrl}/app/  (${signIn})`;
}

export function printCurlExamples(input: CurlExampleInput): void {
  process.stdout.write(
    `\nPlatform ready on ${input.baseUrl}\n` +
      `Tool directory website: ${input.baseUrl}/ (English: ${input.baseUrl}/en/)\n` +
      `${webAppLine(input)}\n\n${curlExamples(input).join('\n')}\n\n`,
  );
}
