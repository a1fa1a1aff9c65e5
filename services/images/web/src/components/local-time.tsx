import { useApp } from '../app-context';
import { DEFAULT_SERVICE_ZONE, showTime } from '../times';

/** Formats the API's times in the viewer's zone, the zone named (times.ts); anything unreadable as it came. */
export function useTimes(): (value: string) => string {
  const { session, lang } = useApp();
  const zone = session?.time_zone ?? DEFAULT_SERVICE_ZONE;
  return (value) => showTime(value, zone, lang)?.text ?? value;
}

/** An API time as <time>: the viewer's date and time with the zone, or only the date (the full time in its title). */
export function LocalTime({ value, dateOnly = false }: { value: string; dateOnly?: boolean }) {
  const { session, lang } = useApp();
  const shown = showTime(value, session?.time_zone ?? DEFAULT_SERVICE_ZONE, lang);
  if (!shown) return <span>{value}</span>;
  return (
    <time dateTime={shown.iso} title={dateOnly ? shown.text : undefined}>
      {dateOnly ? shown.date : shown.text}
    </time>
  );
}
