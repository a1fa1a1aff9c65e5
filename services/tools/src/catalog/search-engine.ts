import { performance } from 'node:perf_hooks';
import { buildSearchIndexInChunks, buildToolForms, updateSearchIndexInChunks, type BuildOptions, type IndexEdit, type SearchIndex } from './search-engine-index';
import type { ToolForms, ToolSource } from './search-forms';
import { rankTools } from './search-rank';
import { buildAliasGroups, planTerms, type AliasGroups } from './search-terms';

/**
 * Search runs in memory on every replica: the catalog (tens of thousands of tools at most) is read once per
 * catalog revision and indexed (search-engine-index.ts), so a query costs no table scan whatever its length.
 * The revision moves with every change to tools, categories or aliases (the catalog_revision migration's
 * triggers), and is checked before each search (`knownRevision`: the service's revision watch, which reads
 * it at most once a second and at once after a write of its own): a change made on any replica starts a
 * rebuild there, and is searched as soon as that rebuild is done; until then the previous index answers
 * (stale-while-rebuild).
 * A rebuild after an edit of a few tools (a save in the editor, a CLI edit, an alias) updates the previous
 * index (updateSearchIndex: the edited tools' forms out, their new forms in, tens of milliseconds at 10,000
 * tools); a larger change (an import, a category of thousands of tools renamed) builds it afresh (seconds).
 * Visit counts move without a revision; they are re-read in the background every `visitsRefreshMs`.
 *
 * A rebuild never holds the process for long: forms are computed and the index built in chunks of a few
 * milliseconds with the event loop let go between them (`pause`), so pages and the API keep answering while
 * an import of thousands of tools is indexed, on the embedded database's single connection too.
 */

export interface SnapshotTool extends ToolSource {
  id: number;
  featured: boolean;
  visits: number;
}

export interface SearchSnapshot {
  revision: number;
  tools: SnapshotTool[];
  aliases: { term: string; alias: string }[];
}

export interface SearchEngineOptions {
  /** The catalog revision in the database: refresh() reads it, to catch up with whatever was written. */
  readRevision: () => Promise<number>;
  /**
   * The revision a search checks its index against; default: readRevision. The service passes its revision
   * watch's (src/catalog/revision-watch.ts), so that a search makes no query of its own for it.
   */
  knownRevision?: () => Promise<number>;
  loadSnapshot: () => Promise<SearchSnapshot>;
  /** Every tool's visits; `pause` is awaited between the pages it reads. */
  loadVisits: (pause: () => Promise<void>) => Promise<Map<number, number>>;
  visitsRefreshMs: number;
  now: () => number;
  /** Told how long each build took (seconds): a metric. */
  onBuilt?: (seconds: number) => void;
  /** Awaited between chunks of a build; default: the event loop's next turn (setImmediate). */
  pause?: () => Promise<void>;
  /** Told of each build whether it was an update of the previous index (`edit`) or a full build (`full`): tests. */
  onBuiltKind?: (kind: 'edit' | 'full', tools: number) => void;
  /** The index's build options (a test shrinks the one-character tables' threshold). */
  index?: BuildOptions;
}

export interface SearchHits {
  ids: number[];
  total: number;
  match: SearchMatch;
}

/** The answer's `match` extension: how the keyword was read, and whether the tools match all of it. */
export interface SearchMatch {
  mode: 'all' | 'partial';
  /** The words every tool had to match (in `partial` mode: as many of them as any tool does); a word naming a tool is required of no other tool (see rankTools). */
  terms: string[];
  /** Filler words (有没有, 推荐, 工具…) that only ranked. */
  ignored: string[];
}

/** How often visit counts (a ranking signal) are re-read: they move on every visit, without a revision. */
export const SEARCH_VISITS_REFRESH_MS = 30_000;

interface State {
  revision: number;
  index: SearchIndex;
  tools: SnapshotTool[];
  aliases: AliasGroups;
  visitsReadAt: number;
  /** The most visited tool's visits: computed on first search, forgotten when visits are re-read. */
  maxVisits?: number;
}

/**
 * An edit changing more than this share of the catalog's tools is indexed afresh: an update copies every
 * form of the catalog once and computes the changed tools' forms, a full build computes every tool's forms
 * and sorts them all (about 100 times an update's work at 10,000 tools).
 */
const EDIT_SHARE_LIMIT = 0.3;

const sameSource = (a: ToolSource, b: ToolSource) =>
  a.name === b.name && a.slug === b.slug && a.description === b.description && a.categoryName === b.categoryName && a.tags.length === b.tags.length && a.tags.every((tag, i) => tag === b.tags[i]);

function maxVisits(tools: SnapshotTool[]): number {
  let max = 0;
  for (const tool of tools) if (tool.visits > max) max = tool.visits;
  return max;
}

/**
 * The edit from the previous index's catalog to a new one, or undefined when the change is too large to
 * update (see EDIT_SHARE_LIMIT): tools matched by id, a tool whose indexed fields changed is removed and
 * added again. Aliases are no part of the index (they are read into a query's plan), nor are visits.
 */
function editBetween(previous: SnapshotTool[], next: SnapshotTool[]): { remap: Int32Array; added: number[] } | undefined {
  const positions = new Map<number, number>();
  next.forEach((tool, position) => positions.set(tool.id, position));
  const remap = new Int32Array(previous.length);
  const kept = new Uint8Array(next.length);
  let changed = 0;
  previous.forEach((tool, position) => {
    const moved = positions.get(tool.id);
    if (moved !== undefined && sameSource(tool, next[moved]!)) {
      remap[position] = moved;
      kept[moved] = 1;
    } else {
      remap[position] = -1;
      changed += 1;
    }
  });
  const added: number[] = [];
  kept.forEach((isKept, position) => {
    if (!isKept) added.push(position);
  });
  if (changed + added.length > EDIT_SHARE_LIMIT * Math.max(previous.length, next.length)) return undefined;
  return { remap, added };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createSearchEngine(options: SearchEngineOptions) {
  const pause = options.pause ?? nextTurn;
  let state: State | undefined;
  let building: Promise<State> | undefined;
  let refreshingVisits: Promise<void> | undefined;

  async function build(): Promise<State> {
    const started = performance.now();
    const snapshot = await options.loadSnapshot();
    // The index answering now is updated when few tools changed: a save in the editor indexes one tool, not 10,000.
    const previous = state;
    const edit = previous && editBetween(previous.tools, snapshot.tools);
    let index: SearchIndex;
    if (previous && edit) {
      const added: IndexEdit['added'] = [];
      for (const position of edit.added) added.push({ position, forms: buildToolForms(snapshot.tools[position]!) });
      index = await updateSearchIndexInChunks(previous.index, { size: snapshot.tools.length, remap: edit.remap, added }, pause);
      options.onBuiltKind?.('edit', added.length);
    } else {
      const toolForms: ToolForms[] = [];
      for (const tool of snapshot.tools) {
        toolForms.push(buildToolForms(tool));
        // Computing 10,000 tools' forms takes seconds: let go every 50.
        if (toolForms.length % 50 === 0) await pause();
      }
      index = await buildSearchIndexInChunks(toolForms, pause, options.index);
      options.onBuiltKind?.('full', toolForms.length);
    }
    options.onBuilt?.((performance.now() - started) / 1000);
    return {
      revision: snapshot.revision,
      index,
      tools: snapshot.tools,
      aliases: buildAliasGroups(snapshot.aliases),
      visitsReadAt: options.now(),
    };
  }

  /** Builds (or joins the build of) the index of the newest revision; a failed build is retried by the next caller. */
  function rebuild(): Promise<State> {
    building ??= build()
      .then((built) => {
        if (!state || built.revision >= state.revision) state = built;
        return state;
      })
      .finally(() => {
        building = undefined;
      });
    return building;
  }

  /**
   * The index to answer from. Only the very first build is awaited; while a newer revision's index is built,
   * the previous one answers (a rebuild at 10,000 tools takes seconds, a search must not).
   */
  const knownRevision = options.knownRevision ?? options.readRevision;

  async function current(): Promise<State> {
    const revision = await knownRevision();
    if (!state) return rebuild();
    if (state.revision !== revision) {
      // Nobody awaits this one: the next search that finds the revision still newer tries again.
      rebuild().catch(() => undefined);
      return state;
    }
    if (options.now() - state.visitsReadAt >= options.visitsRefreshMs && !refreshingVisits) {
      const stale = state;
      refreshingVisits = options
        .loadVisits(pause)
        .then((visits) => {
          for (const tool of stale.tools) tool.visits = visits.get(tool.id) ?? tool.visits;
          stale.maxVisits = undefined;
          stale.visitsReadAt = options.now();
        })
        .catch(() => undefined)
        .finally(() => {
          refreshingVisits = undefined;
        });
    }
    return state;
  }

  return {
    /** The catalog revision of the index answering now (-1 before the first build). */
    indexRevision(): number {
      return state?.revision ?? -1;
    },

    /**
     * Resolves once the index answering searches is that of the catalog revision read now (or a newer one):
     * the service warms the index with it before it listens, and a test waits on it after changing the catalog.
     */
    async refresh(): Promise<void> {
      const revision = await options.readRevision();
      while (!state || state.revision < revision) await rebuild();
    },

    async search(keyword: string, offset: number, limit: number): Promise<SearchHits> {
      const found = await current();
      const { index, tools, aliases } = found;
      const plan = planTerms(keyword, aliases);
      // Popularity's scale, read once per index and per visits refresh (not over 10,000 tools per search).
      found.maxVisits ??= maxVisits(tools);
      const ranking = rankTools(plan, index, tools, offset + limit, found.maxVisits);
      return {
        ids: ranking.order.slice(offset, offset + limit).map((position) => tools[position]!.id),
        total: ranking.total,
        match: {
          mode: ranking.mode,
          terms: plan.required.map((term) => term.text),
          ignored: plan.ignored,
        },
      };
    },
  };
}

export type SearchEngine = ReturnType<typeof createSearchEngine>;
