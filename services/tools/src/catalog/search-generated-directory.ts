import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeSearchText } from './search-normalize';
import { DEFAULT_SEARCH_ALIASES } from './search-default-aliases';
import type { SearchSnapshot } from './search-engine';

/**
 * A deterministic tool directory of any size for the search latency scenario: the sample directory's
 * categories and its 247 tools (so the judged queries have their answers), then generated tools in
 * the same categories, named, tagged and described from the words the sample's own tools use there
 * (Chinese, English and mixed names), so that a common word such as 截图 or "pdf" matches hundreds of
 * tools, as in a real directory of that size. Visits follow a long tail, the sample's tools at its head.
 * Used by the benchmark's search scenario (imported through the CLI) and by the search quality test at
 * 10,000 tools (indexed in memory, `generatedSearchSnapshot`).
 */

interface SampleTool {
  slug: string;
  name: string;
  description: string;
  url: string;
  icon?: string | null;
  category: string;
  tags: string[];
  is_featured?: boolean;
}
interface SampleDirectory {
  categories: { slug: string; name: string; description?: string; icon?: string; sort_order?: number }[];
  tools: SampleTool[];
}

export interface GeneratedDirectory {
  /** The import document (the importer's JSON format). */
  document: { categories: SampleDirectory['categories']; tools: SampleTool[] };
  /** Visits by slug, set after the import (the importer does not take visits). */
  visits: Map<string, number>;
}

/** The sample directory, found from src/catalog (tsx, jest) and from dist/src/catalog (node). */
function sampleDirectoryPath(): string {
  const candidates = [path.resolve(__dirname, '../../data/sample-tools.json'), path.resolve(__dirname, '../../../data/sample-tools.json')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`sample directory not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** mulberry32: a small seeded PRNG, so that every run measures the same directory. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HAN = /\p{Script=Han}/u;
const CN_SUFFIXES = ['助手', '大师', '精灵', '工具箱', '神器', '管家', '宝', '专家', '在线版', 'Pro', '通', '王', '极速版', '云'];
const SYLLABLES = ['sna', 'pi', 'xo', 'lu', 'ka', 'mo', 'ri', 'ta', 've', 'zen', 'qui', 'fly', 'neo', 'bit', 'ax', 'do', 'ly', 'fy', 'io', 'ra', 'su', 'mi', 'go', 'nu'];
const CN_ADJECTIVES = ['免费的', '轻量的', '开源的', '跨平台的', '简单好用的', '专业的', '在线', '国产', '小巧的', '高效的'];
const CN_EXTRAS = ['无需注册', '适合团队协作', '提供浏览器插件', '支持 Windows 和 macOS', '界面简洁', '可离线使用', '有手机版', '基础功能免费'];
const EN_ADJECTIVES = ['free', 'lightweight', 'open-source', 'cross-platform', 'simple', 'fast', 'privacy-friendly'];
const EN_FALLBACK_TAGS = ['online', 'tool', 'app', 'web', 'free'];

export function generateToolDirectory(total: number, seed = 20261127): GeneratedDirectory {
  const sample = JSON.parse(readFileSync(sampleDirectoryPath(), 'utf8')) as SampleDirectory;
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const pickSome = <T>(items: readonly T[], count: number): T[] => {
    const chosen = new Set<T>();
    for (let tries = 0; chosen.size < Math.min(count, items.length) && tries < count * 4; tries++) chosen.add(pick(items));
    return [...chosen];
  };
  const brand = () => {
    const word = Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(SYLLABLES)).join('');
    return word[0]!.toUpperCase() + word.slice(1);
  };

  // Each category's words, from its sample tools: Chinese tags and English tags (the categories' sizes
  // in the sample set how many generated tools each gets).
  const words = new Map<string, { cn: string[]; en: string[]; weight: number }>();
  for (const category of sample.categories) words.set(category.slug, { cn: [], en: [], weight: 0 });
  for (const tool of sample.tools) {
    const entry = words.get(tool.category)!;
    entry.weight++;
    for (const tag of tool.tags) (HAN.test(tag) ? entry.cn : entry.en).push(tag);
  }
  const categories = [...words.entries()].filter(([, entry]) => entry.cn.length > 0);
  const weightSum = categories.reduce((sum, [, entry]) => sum + entry.weight, 0);
  const pickCategory = () => {
    let at = random() * weightSum;
    for (const [slug, entry] of categories) if ((at -= entry.weight) < 0) return slug;
    return categories[categories.length - 1]![0];
  };

  const tools: SampleTool[] = [...sample.tools];
  const visits = new Map<string, number>();
  for (const tool of sample.tools) visits.set(tool.slug, 2_000 + Math.floor(random() * 60_000) * (tool.is_featured ? 2 : 1));
  for (let i = 1; tools.length < total; i++) {
    const category = pickCategory();
    const { cn, en: enTags } = words.get(category)!;
    const en = enTags.length > 0 ? enTags : EN_FALLBACK_TAGS;
    const label = brand();
    const style = random();
    const word = pick(en);
    const name = style < 0.4 ? `${pick(cn)}${pick(CN_SUFFIXES)}` : style < 0.7 ? `${label} ${word[0]!.toUpperCase()}${word.slice(1)}` : style < 0.9 ? `${label}${pick(cn)}` : label;
    const tags = [...pickSome(cn, 1 + Math.floor(random() * 3)), ...pickSome(en, Math.floor(random() * 3))];
    const description =
      random() < 0.8
        ? `${name}是一款${pick(CN_ADJECTIVES)}${pick(cn)}工具，支持${pickSome(cn, 2).join('、')}，${pick(CN_EXTRAS)}。`
        : `A ${pick(EN_ADJECTIVES)} ${pick(en)} tool for ${pickSome(en, 2).join(' and ')}.`;
    const slug = `g${String(i).padStart(5, '0')}-${label.toLowerCase()}`;
    tools.push({ slug, name, description, url: `https://${slug}.example.com/`, icon: '', category, tags, is_featured: random() < 0.01 });
    // A long tail: most generated tools have a few visits, a few have as many as a sample tool.
    visits.set(slug, Math.floor(3_000 * random() ** 6));
  }
  return { document: { categories: sample.categories, tools }, visits };
}

/**
 * What the search index would read from a database holding the directory and the default aliases (as
 * search-repository.ts reads it): ids in import order, visits as the benchmark sets them.
 */
export function generatedSearchSnapshot(directory: GeneratedDirectory): SearchSnapshot {
  const categoryNames = new Map(directory.document.categories.map((category) => [category.slug, category.name]));
  return {
    revision: 1,
    tools: directory.document.tools.map((tool, index) => ({
      id: index + 1,
      name: tool.name,
      slug: tool.slug,
      tags: tool.tags,
      description: tool.description,
      categoryName: categoryNames.get(tool.category) ?? '',
      featured: tool.is_featured === true,
      visits: directory.visits.get(tool.slug) ?? 0,
    })),
    aliases: DEFAULT_SEARCH_ALIASES.flatMap(([term, ...aliases]) => aliases.map((alias) => ({ term: normalizeSearchText(term!), alias: normalizeSearchText(alias) }))),
  };
}
