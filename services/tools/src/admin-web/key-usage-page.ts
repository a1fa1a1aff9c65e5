import type { ApiKeyRow } from '../auth/api-keys-repository';
import { html, type Html } from '../site/html';
import { HOUR_MS, type KeyHour } from '../usage/key-hours';
import { renderAdminPage, type AdminContext } from './admin-layout';
import { ADMIN_TEXT as T } from './admin-text';

/** Days shown on a key's usage page. */
export const USAGE_DAYS = 7;
/** Hours are shown in Beijing time (UTC+8, no daylight saving): the directory's editors' clock. */
const OFFSET_MS = 8 * HOUR_MS;
const DAY_MS = 24 * HOUR_MS;

const pad = (value: number) => String(value).padStart(2, '0');
const dayLabel = (localDayMs: number) => {
  const day = new Date(localDayMs);
  return `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`;
};

/** The first hour shown: midnight (Beijing) USAGE_DAYS - 1 days before today. */
export function usageSince(nowMs: number): Date {
  const localMidnight = Math.floor((nowMs + OFFSET_MS) / DAY_MS) * DAY_MS;
  return new Date(localMidnight - (USAGE_DAYS - 1) * DAY_MS - OFFSET_MS);
}

/**
 * One key's requests per hour over the last days: a bar chart (decorative; its numbers are in the table) and a
 * table of days by hours, empty hours shown as "·".
 */
export function renderKeyUsage(context: AdminContext, view: { key: ApiKeyRow; hours: KeyHour[]; nowMs: number }): string {
  const since = usageSince(view.nowMs).getTime();
  const counts = new Map(view.hours.map((hour) => [hour.hour.getTime(), hour.requests]));
  const slots = Array.from({ length: USAGE_DAYS * 24 }, (_, index) => since + index * HOUR_MS);
  const max = Math.max(1, ...slots.map((slot) => counts.get(slot) ?? 0));
  const total = slots.reduce((sum, slot) => sum + (counts.get(slot) ?? 0), 0);
  const width = 4;
  const height = 80;
  const chart: Html = html`<svg class="usage-chart" viewBox="0 0 ${slots.length * width} ${height}" width="100%" height="${height}" preserveAspectRatio="none" aria-hidden="true" focusable="false">${slots.map((slot, index) => {
    const requests = counts.get(slot) ?? 0;
    const barHeight = requests === 0 ? 0 : Math.max(1, Math.round((requests / max) * height));
    return requests === 0 ? null : html`<rect x="${index * width}" y="${height - barHeight}" width="${width - 1}" height="${barHeight}"></rect>`;
  })}</svg>`;
  const days = Array.from({ length: USAGE_DAYS }, (_, day) => since + day * DAY_MS).reverse();
  const rows = days.map((dayStart) => {
    const hours = Array.from({ length: 24 }, (_, hour) => counts.get(dayStart + hour * HOUR_MS) ?? 0);
    return html`<tr><th scope="row">${dayLabel(dayStart + OFFSET_MS)}</th>${hours.map((requests) => html`<td class="num">${requests === 0 ? '·' : requests}</td>`)}<td class="num"><strong>${hours.reduce((a, b) => a + b, 0)}</strong></td></tr>`;
  });
  return renderAdminPage(context, {
    title: T.keyUsageTitle(view.key.name),
    section: 'keys',
    main: html`<div class="admin-head"><h1>${T.keyUsageTitle(view.key.name)}</h1><a class="btn btn--quiet" href="/admin/keys">${T.keys}</a></div>
<p class="field__hint">${T.keyUsageIntro(USAGE_DAYS, total)}</p>
<div class="admin-card">${chart}</div>
<div class="table-wrap"><table class="admin-table usage-table">
  <caption>${T.keyUsageCaption}</caption>
  <thead><tr><th scope="col">${T.keyUsageDay}</th>${Array.from({ length: 24 }, (_, hour) => html`<th scope="col" class="num">${pad(hour)}</th>`)}<th scope="col" class="num">${T.keyUsageTotal}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`,
  });
}
