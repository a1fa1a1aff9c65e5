import { createTimeFormatter } from '../src/images/image-views';

/** The straightforward formatter the fast one must equal: Intl's parts of every single date. */
function intlFormatter(timeZone: string): (date: Date) => string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  return (date) => {
    const p = Object.fromEntries(parts.formatToParts(date).map((part) => [part.type, part.value]));
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
}

test('when times cross daylight-saving changes in zones with hour, half-hour and 45-minute offsets, then the cached-offset formatter equals Intl on every one', () => {
  for (const zone of ['Asia/Shanghai', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham']) {
    const fast = createTimeFormatter(zone);
    const exact = intlFormatter(zone);
    const mismatches: string[] = [];
    // Steps of 37 min 11 s over two years land on every minute and second of the hour, DST changes included.
    for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2027, 0, 1); t += 37 * 60_000 + 11_000) {
      const date = new Date(t);
      if (fast(date) !== exact(date)) mismatches.push(`${zone} ${date.toISOString()}: ${fast(date)} != ${exact(date)}`);
    }
    expect(mismatches).toEqual([]);
  }
  expect(createTimeFormatter('Asia/Shanghai')(new Date('2026-11-23T16:24:39Z'))).toBe('2026-11-24 00:24:39');
});
