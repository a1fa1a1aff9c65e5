/** Tool rows as read from `tools` joined with `categories`, and their mapping to the API's Tool. */

/** A tool as the API shows it (field names are the wire names, per DESIGN.md). */
export interface Tool {
  id: number;
  name: string;
  slug: string;
  description: string;
  url: string;
  icon: string;
  category_id: number;
  category_name: string;
  tags: string[];
  visits: number;
  is_featured: boolean;
  created_at: string;
  updated_at: string;
}

export interface ToolWithCategorySlug extends Tool {
  category_slug: string;
}

export interface DbToolRow {
  id: number;
  name: string;
  slug: string;
  description: string;
  url: string;
  icon: string;
  category_id: number;
  category_name: string;
  category_slug: string;
  tags: string[];
  visits: string | number;
  is_featured: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

export const toolColumns = [
  't.id',
  't.name',
  't.slug',
  't.description',
  't.url',
  't.icon',
  't.category_id',
  'c.name as category_name',
  'c.slug as category_slug',
  't.tags',
  't.visits',
  't.is_featured',
  't.created_at',
  't.updated_at',
];

export function toTool(row: DbToolRow): ToolWithCategorySlug {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    url: row.url,
    icon: row.icon,
    category_id: row.category_id,
    category_name: row.category_name,
    category_slug: row.category_slug,
    tags: row.tags ?? [],
    visits: Number(row.visits),
    is_featured: row.is_featured,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export function withoutCategorySlug(tool: ToolWithCategorySlug): Tool {
  const { category_slug: _ignored, ...rest } = tool;
  return rest;
}
