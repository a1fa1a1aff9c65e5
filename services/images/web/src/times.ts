import { TZDate } from '@date-fns/tz';
import type { Lang } from './i18n';

/**
 * The API's times are `YYYY-MM-DD HH:MM:SS` with no offset, in the service's zone (the spec fixes
 * `create_time` so; `login` names the zone in `time_zone`). The app shows them in the viewer's zone,
 * with that zone named: "2026-11-27 21:04 GMT+8".
 */

/** The zone of the service when the session does not say (one kept from before `time_zone` existed): the documented default. */
export const DEFAULT_SERVICE_ZONE = 'Asia/Shanghai';

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** The instant an API time names, or null for anything else. */
export function instantOf(value: string, serviceZone: string): Date | null {
  const match = LOCAL_TIME.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(new TZDate(year, month - 1, day, hour, minute, second, serviceZone).getTime());
}

export interface ShownTime {
  /** For <time datetime>: the instant in ISO 8601 (UTC). */
  iso: string;
  /** "2026-11-27 21:04 GMT+8": the viewer's zone (or `viewerZone`), named in the app's language. */
  text: string;
  /** "2026-11-27": the date part of `text`. */
  date: string;
}

export function showTime(value: string, serviceZone: string, lang: Lang, viewerZone?: string): ShownTime | null {
  const instant = instantOf(value, serviceZone);
  if (!instant) return null;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: viewerZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((item) => item.type === type)?.value ?? '';
  const zone =
    new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', { timeZone: viewerZone, timeZoneName: 'short' }).formatToParts(instant).find((item) => item.type === 'timeZoneName')?.value ?? '';
  const date = `${part('year')}-${part('month')}-${part('day')}`;
  return { iso: instant.toISOString(), text: `${date} ${part('hour')}:${part('minute')} ${zone}`.trim(), date };
}
