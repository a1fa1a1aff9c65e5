import { Parser } from 'htmlparser2';
import type { ParsedSource, SourceRow } from '../import-sources';
import { createSlugRegistry, slugFromText, slugFromUrl } from './derived-slugs';

/**
 * Netscape bookmark files as Chrome, Firefox and Edge export them (and as `export --format html` writes them).
 * The first two folder levels become categories (the second with `parent` = the first, which the category schema
 * keeps only where categories have parents); deeper folders become one path tag on each link. The browsers'
 * own containers (bookmarks bar, other bookmarks) are looked through. Our own export adds `data-*` attributes
 * that carry every field, so that it imports back to the same directory.
 */
export const UNFILED_CATEGORY = { slug: 'uncategorized', name: '未分类' } as const;
const CONTAINER_ATTRIBUTES = ['personal_toolbar_folder', 'unfiled_bookmarks_folder'];
const MAX_TAG = 50;

interface Folder {
  name: string;
  attributes: Record<string, string>;
  line: number;
  transparent: boolean;
  description?: string;
  category?: SourceRow;
}

interface Link {
  attributes: Record<string, string>;
  title: string;
  line: number;
  folders: Folder[];
  description?: string;
}

export function looksLikeBookmarkHtml(text: string): boolean {
  return /<!DOCTYPE\s+NETSCAPE-Bookmark-file-1>/i.test(text.slice(0, 2000)) || /<DL>/i.test(text.slice(0, 5000));
}

export function parseBookmarkHtml(text: string): { source: ParsedSource; links: number } {
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lineStarts.push(index + 1);
  const lineAt = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };

  const stack: (Folder | null)[] = [];
  const links: Link[] = [];
  const folders: Folder[][] = [];
  let pendingFolder: Folder | null = null;
  let capture: { kind: 'h3' | 'a'; text: string; attributes: Record<string, string>; line: number } | null = null;
  let description: { target: Folder | Link; text: string } | null = null;
  let lastItem: Folder | Link | null = null;
  const endDescription = () => {
    if (description) description.target.description = description.text.trim();
    description = null;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (description && name !== 'br') endDescription();
        if (name === 'dl') {
          stack.push(pendingFolder);
          if (pendingFolder && !pendingFolder.transparent) folders.push(stack.filter((folder): folder is Folder => folder !== null && !folder.transparent));
          pendingFolder = null;
        } else if (name === 'h3' || name === 'a') {
          capture = { kind: name, text: '', attributes, line: lineAt(parser.startIndex) };
        } else if (name === 'dd' && lastItem) {
          description = { target: lastItem, text: '' };
        }
      },
      ontext(chunk) {
        if (capture) capture.text += chunk;
        else if (description) description.text += chunk;
      },
      onclosetag(name) {
        if (name === 'dl') {
          endDescription();
          stack.pop();
          lastItem = null;
        } else if (capture && name === capture.kind) {
          const title = capture.text.trim();
          if (capture.kind === 'h3') {
            const transparent = CONTAINER_ATTRIBUTES.some((attribute) => attribute in capture!.attributes);
            pendingFolder = { name: title, attributes: capture.attributes, line: capture.line, transparent };
            lastItem = pendingFolder;
          } else {
            const folders = stack.filter((folder): folder is Folder => folder !== null && !folder.transparent);
            const link: Link = { attributes: capture.attributes, title, line: capture.line, folders };
            links.push(link);
            lastItem = link;
          }
          capture = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.write(text);
  parser.end();
  endDescription();
  return { source: toSource(folders, links), links: links.length };
}


function toSource(folderPaths: Folder[][], links: Link[]): ParsedSource {
  const categorySlug = createSlugRegistry();
  const toolSlug = createSlugRegistry();
  const categories: SourceRow[] = [];
  const folderCategory = (folder: Folder, parent: Folder | undefined, key: string): SourceRow => {
    if (folder.category) return folder.category;
    const attributes = folder.attributes;
    const slug = categorySlug(key, attributes['data-slug'] || slugFromText(folder.name, 'folder'));
    const fields: Record<string, unknown> = {
      slug,
      name: folder.name,
      description: folder.description ?? '',
      icon: attributes['data-icon'] ?? '',
      sort_order: attributes['data-sort-order'] !== undefined ? Number(attributes['data-sort-order']) : categories.length,
      name_en: attributes['data-name-en'] ?? '',
      description_en: attributes['data-description-en'] ?? '',
    };
    if (parent?.category) fields.parent = parent.category.fields.slug;
    folder.category = { row: folder.line, fields };
    categories.push(folder.category);
    return folder.category;
  };
  const categoryOf = ([first, second]: Folder[]): SourceRow =>
    second ? folderCategory(second, first, `${first!.name}\u0000${second.name}`) : folderCategory(first!, undefined, first!.name);
  // Every folder of the first two levels, in the file's order, empty ones too (an exported empty category).
  for (const path of folderPaths) if (path.length <= 2) categoryOf(path);
  let unfiled: SourceRow | undefined;

  const tools = links.map((link): SourceRow => {
    const [first, second, ...deeper] = link.folders;
    let category: SourceRow;
    if (!first) {
      unfiled ??= { row: link.line, fields: { ...UNFILED_CATEGORY, sort_order: categories.length } };
      if (!categories.includes(unfiled)) categories.push(unfiled);
      category = unfiled;
    } else {
      category = categoryOf(second ? [first, second] : [first]);
    }
    const attributes = link.attributes;
    const url = (attributes.href ?? '').trim();
    const tags = attributes['data-tags'] !== undefined ? parseTagList(attributes['data-tags']) : splitTags(attributes.tags);
    if (deeper.length > 0) tags.push(deeper.map((folder) => folder.name).join('/').slice(0, MAX_TAG));
    const iconUri = attributes['icon_uri'] ?? '';
    const fields: Record<string, unknown> = {
      slug: toolSlug(url, attributes['data-slug'] || slugFromUrl(url, 'link')),
      name: (link.title || hostOf(url)).slice(0, 200),
      description: link.description ?? '',
      url,
      icon: /^https?:\/\//i.test(iconUri) ? iconUri : '',
      category: category.fields.slug,
      tags,
      is_featured: attributes['data-featured'] === 'true',
      name_en: attributes['data-name-en'] ?? '',
      description_en: attributes['data-description-en'] ?? '',
    };
    if (attributes['data-sort-order'] !== undefined) fields.sort_order = Number(attributes['data-sort-order']);
    return { row: link.line, fields };
  });
  return { categories, tools };
}

function parseTagList(raw: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed : [raw];
  } catch {
    return splitTags(raw);
  }
}

const splitTags = (raw: string | undefined): unknown[] =>
  (raw ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url.slice(0, 200);
  }
}
