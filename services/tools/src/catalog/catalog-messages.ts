import type { z } from 'zod';

/**
 * The catalog's refusals (a field the rules refuse, an import row, a file that cannot be read) as a message
 * key with parameters, worded when shown: the admin in the editor's language, the CLI in English. Import
 * reports store them this way, so a stored run reads in whichever language its viewer uses. A report stored
 * before keys (a plain English string) is shown as it was stored.
 */
export type CatalogMessageParams = Record<string, string | number>;

export interface CatalogMessage {
  key: CatalogMessageKey;
  params: CatalogMessageParams;
}

type Wording = (params: CatalogMessageParams) => string;

/** The field names of a form or an import file, as a message names them. */
const ZH_FIELDS: Record<string, string> = {
  slug: 'slug',
  name: '名称',
  description: '简介',
  url: '网址',
  icon: '图标',
  category: '分类',
  tags: '标签',
  is_featured: '推荐',
  name_en: '英文名称',
  description_en: '英文简介',
  sort_order: '排序',
  parent: '上级分类',
};

const en = {
  required: ({ field }) => `${field} is required`,
  tooLong: ({ field, max }) => `${field} is longer than ${max} characters`,
  invalidCharacters: ({ field }) => `${field} contains control characters or invalid Unicode`,
  notString: ({ field }) => `${field} must be a string`,
  slugFormat: () => 'slug must be lowercase letters, digits, ".", "_" or "-"',
  notHttpUrl: ({ field }) => `${field} is not a valid http(s) URL`,
  iconNotUrl: () => 'icon must be empty or an http(s) URL',
  tagNotString: () => 'tags must be strings',
  tagTooLong: ({ max }) => `a tag is longer than ${max} characters`,
  tagInvalidCharacters: () => 'a tag contains control characters or invalid Unicode',
  tagsNotList: () => 'tags must be a list of strings',
  tooManyTags: ({ max }) => `more than ${max} tags`,
  notBoolean: ({ field }) => `${field} must be true or false`,
  notInteger: ({ field }) => `${field} must be an integer`,
  parentNotSlug: () => 'parent must be a category slug',
  invalidRow: () => 'invalid row',
  ownParent: () => 'a category cannot be its own parent',
  unknownParent: ({ parent }) => `unknown parent category "${parent}"`,
  parentIsSubcategory: ({ parent }) => `parent "${parent}" is itself a subcategory: categories have two levels only`,
  hasSubcategories: ({ slug, count }) => `"${slug}" has ${count} subcategories, so it cannot become a subcategory: categories have two levels only`,
  unknownCategory: ({ category }) => `unknown category "${category}"`,
  toolSlugTaken: ({ slug }) => `slug "${slug}" is already used by another tool`,
  categorySlugTaken: ({ slug }) => `slug "${slug}" is already used by another category`,
  categoryNotObject: () => 'category must be an object',
  toolNotObject: () => 'tool must be an object',
  duplicateCategorySlug: ({ slug }) => `duplicate category slug "${slug}" in this file`,
  duplicateToolSlug: ({ slug }) => `duplicate slug "${slug}" in this file`,
  columnCount: ({ expected, found }) => `expected ${expected} columns, found ${found}`,
  recordKind: ({ found }) => `record must be "category" or "tool", found "${found}"`,
  privateInOneNav: () => 'private in OneNav (not imported)',
  notUtf8: () => 'the file is not UTF-8 text',
  notBookmarkFile: () => 'not a bookmark file: expected <!DOCTYPE NETSCAPE-Bookmark-file-1> and <DL> lists',
  invalidJson: ({ detail }) => `not valid JSON: ${detail}`,
  jsonShape: () => 'JSON must be {"categories": [...], "tools": [...]} or an array of tools',
  categoriesNotArray: () => '"categories" must be an array',
  invalidCsv: ({ detail }) => `not valid CSV: ${detail}`,
  csvHeader: ({ columns, optional }) => `CSV header must be exactly: ${columns} (optionally followed by ${optional})`,
  fullCsvHeader: ({ columns }) => `CSV header must be exactly: ${columns} (parent may be left out)`,
  notOneNav: () => 'not a OneNav database: expected a SQLite file (onenav.db3)',
  unreadableSqlite: ({ detail }) => `not a readable SQLite file: ${detail}`,
  oneNavTableMissing: ({ table }) => `not a OneNav database: table ${table} is missing`,
  importInterrupted: () => 'interrupted: the process running it stopped',
} satisfies Record<string, Wording>;

export type CatalogMessageKey = keyof typeof en;

const zhField = (field: string | number | undefined) => ZH_FIELDS[String(field)] ?? String(field);

const zh: Record<CatalogMessageKey, Wording> = {
  required: ({ field }) => `${zhField(field)}不能为空`,
  tooLong: ({ field, max }) => `${zhField(field)}超过 ${max} 个字符`,
  invalidCharacters: ({ field }) => `${zhField(field)}含有控制字符或无效的 Unicode`,
  notString: ({ field }) => `${zhField(field)}必须是文本`,
  slugFormat: () => 'slug 只能由小写字母、数字、“.”、“_”和“-”组成',
  notHttpUrl: ({ field }) => `${zhField(field)}不是有效的 http(s) 网址`,
  iconNotUrl: () => '图标须留空或填写 http(s) 网址',
  tagNotString: () => '标签必须是文本',
  tagTooLong: ({ max }) => `有标签超过 ${max} 个字符`,
  tagInvalidCharacters: () => '有标签含有控制字符或无效的 Unicode',
  tagsNotList: () => '标签必须是文本列表',
  tooManyTags: ({ max }) => `标签超过 ${max} 个`,
  notBoolean: ({ field }) => `${zhField(field)}只能是 true 或 false`,
  notInteger: ({ field }) => `${zhField(field)}必须是整数`,
  parentNotSlug: () => '上级分类须填写分类的 slug',
  invalidRow: () => '这一行无效',
  ownParent: () => '分类不能是自己的上级分类',
  unknownParent: ({ parent }) => `没有 slug 为“${parent}”的上级分类`,
  parentIsSubcategory: ({ parent }) => `“${parent}”本身是子分类：分类只有两级`,
  hasSubcategories: ({ slug, count }) => `“${slug}”有 ${count} 个子分类，不能成为子分类：分类只有两级`,
  unknownCategory: ({ category }) => `没有 slug 为“${category}”的分类`,
  toolSlugTaken: ({ slug }) => `slug“${slug}”已被另一个工具使用`,
  categorySlugTaken: ({ slug }) => `slug“${slug}”已被另一个分类使用`,
  categoryNotObject: () => '分类必须是一个对象',
  toolNotObject: () => '工具必须是一个对象',
  duplicateCategorySlug: ({ slug }) => `文件中分类 slug“${slug}”重复`,
  duplicateToolSlug: ({ slug }) => `文件中 slug“${slug}”重复`,
  columnCount: ({ expected, found }) => `应有 ${expected} 列，实际 ${found} 列`,
  recordKind: ({ found }) => `record 列须为“category”或“tool”，实际为“${found}”`,
  privateInOneNav: () => '在 OneNav 中是私有链接（不导入）',
  notUtf8: () => '文件不是 UTF-8 文本',
  notBookmarkFile: () => '不是书签文件：应以 <!DOCTYPE NETSCAPE-Bookmark-file-1> 开头并含有 <DL> 列表',
  invalidJson: ({ detail }) => `不是有效的 JSON：${detail}`,
  jsonShape: () => 'JSON 应为 {"categories": [...], "tools": [...]} 或工具数组',
  categoriesNotArray: () => '"categories" 必须是数组',
  invalidCsv: ({ detail }) => `不是有效的 CSV：${detail}`,
  csvHeader: ({ columns, optional }) => `CSV 表头必须正好是：${columns}（后面可以加上 ${optional}）`,
  fullCsvHeader: ({ columns }) => `CSV 表头必须正好是：${columns}（parent 可以省略）`,
  notOneNav: () => '不是 OneNav 数据库：应为 SQLite 文件（onenav.db3）',
  unreadableSqlite: ({ detail }) => `无法读取的 SQLite 文件：${detail}`,
  oneNavTableMissing: ({ table }) => `不是 OneNav 数据库：缺少 ${table} 表`,
  importInterrupted: () => '已中断：运行它的进程停止了',
};

const WORDINGS = { zh, en: en as Record<CatalogMessageKey, Wording> };

export const catalogMessage = (key: CatalogMessageKey, params: CatalogMessageParams = {}): CatalogMessage => ({ key, params });

/** A schema's message: the key itself (the issue carries it; `messageOfIssue` adds the parameters). */
export const messageKey = (key: CatalogMessageKey): string => key;

const isKey = (value: unknown): value is CatalogMessageKey => typeof value === 'string' && Object.hasOwn(en, value);

/**
 * The message of a zod issue raised by the catalog's rules: the key the schema gave, the field from the
 * issue's path, the limit from a too-long issue and any parameters a refinement gave.
 */
export function messageOfIssue(issue: z.core.$ZodIssue): CatalogMessage {
  if (!isKey(issue.message)) return catalogMessage('invalidRow');
  const params: CatalogMessageParams = {};
  if (issue.path[0] !== undefined) params.field = String(issue.path[0]);
  if (issue.code === 'too_big') params.max = Number(issue.maximum);
  if (issue.code === 'custom' && issue.params) Object.assign(params, issue.params);
  return catalogMessage(issue.message, params);
}

/** A message in `lang`; a stored plain string (a report from before keys) as it is, an unknown key by its name. */
export function messageText(message: CatalogMessage | string, lang: 'zh' | 'en'): string {
  if (typeof message === 'string') return message;
  if (!isKey(message.key)) return String(message.key);
  return WORDINGS[lang][message.key](message.params ?? {});
}

/** A message the English way (the CLI, logs and errors' `message`). */
export const englishText = (message: CatalogMessage | string) => messageText(message, 'en');
