/** Where a long admin command (storage:migrate, import-from) reports: its output, and a line redrawn in place on a terminal. */
export interface ProgressOutput {
  out(line: string): void;
  err(line: string): void;
  redraw?(text: string): void;
}

/** `[#####-----]  50%`: how far `done` of `total` is (the admin commands' progress bars). */
export function progressBar(done: number, total: number, width = 30): string {
  const fraction = total === 0 ? 1 : done / total;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`;
}
