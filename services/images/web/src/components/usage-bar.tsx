import { useApp } from '../app-context';
import { formatBytes, percentOf } from '../format';

/** Used over quota, as a bar with the numbers written beside it. */
export function UsageBar({ used, quota, compact = false, label }: { used: number; quota: number; compact?: boolean; label?: string }) {
  const { t } = useApp();
  const percent = percentOf(used, quota);
  const level = percent >= 90 ? 'full' : percent >= 70 ? 'high' : 'ok';
  // Some use shows as a sliver and "<1%", not as nothing.
  const shown = used > 0 && percent === 0 ? '<1' : String(percent);
  return (
    <div class={compact ? 'usage compact' : 'usage'}>
      <progress class={`usage-bar ${level}`} max={Math.max(quota, 1)} value={Math.min(used, Math.max(quota, 1))} aria-label={label ?? t('storage')} aria-valuetext={t('usagePercent', { percent: shown })} />
      <span class="usage-text">
        {t('usedOf', { used: formatBytes(used), quota: formatBytes(quota) })}
        {compact ? null : <span class="muted"> · {t('usagePercent', { percent: shown })}</span>}
      </span>
    </div>
  );
}
