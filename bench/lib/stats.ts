/** Small statistics and formatting helpers for the harness. */

/** Median of a non-empty list (mean of the two middle values for even lengths). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The `p`-th percentile (0–100, nearest rank) of a list. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Array.from(values).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median with its range over the runs. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    min: values.length ? Math.min(...values) : Number.NaN,
    max: values.length ? Math.max(...values) : Number.NaN,
    n: values.length,
  };
}

/** `12,345` / `1.23` / `0.012` — enough digits to read, never scientific. */
export function fmt(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return "—";
  const d = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3);
  return value.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** `1,234 (1,100–1,300)` */
export function fmtSummary(s: Summary, unit = "", digits?: number): string {
  const u = unit ? ` ${unit}` : "";
  if (s.n <= 1 || s.min === s.max) return `${fmt(s.median, digits)}${u}`;
  return `${fmt(s.median, digits)}${u} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/** Bytes as KB/MB with one decimal. */
export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "—";
  const abs = Math.abs(bytes);
  if (abs >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (abs >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${Math.round(bytes)} B`;
}

/** `5.2×` */
export function fmtRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return "—";
  return ratio >= 10 ? `${ratio.toFixed(1)}×` : `${ratio.toFixed(2)}×`;
}
