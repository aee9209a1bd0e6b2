/**
 * What `igw` prints. Human output: aligned tables for lists and `label  value` lines for one record,
 * with terminal control characters removed from anything the service sent. `--json`: the SDK's
 * result as one JSON document. Errors: one line on stderr, `igw: <message> (<code>)`, or
 * `{"error":{"code","message"}}` with `--json`.
 */
import { microsToUsd } from '@inference-gateway/admin';
import type { ErrorReport } from './errors.ts';

/** One column of a table: its header and how a row shows in it. */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Numbers and amounts read better right-aligned. */
  align?: 'left' | 'right';
}

/** Control characters (ANSI escapes, carriage returns) would let the service's data rewrite the terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** A value made safe for one cell or line of a terminal. */
export function sanitize(text: string): string {
  return text.replace(CONTROL_CHARACTERS, ' ');
}

/** Rows under an upper-case header, columns two spaces apart, no trailing spaces. */
export function renderTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
  const cells = [
    columns.map((column) => column.header.toUpperCase()),
    ...rows.map((row) => columns.map((column) => sanitize(column.value(row)))),
  ];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => (line[index] as string).length)));
  return cells
    .map((line) =>
      line
        .map((cell, index) => {
          const width = widths[index] as number;
          return columns[index]?.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
        })
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** One record as `label  value` lines, labels aligned. */
export function renderFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length));
  const lines = fields.map(([label, value]) => `${label.padEnd(width)}  ${sanitize(value)}`.trimEnd());
  return lines.map((line) => `${line}\n`).join('');
}

/** `$2.50` for 2500000 micros (exact; never through floating point); `fallback` for none. */
export function formatUsd(micros: number | null | undefined, fallback = '-'): string {
  if (micros === null || micros === undefined) return fallback;
  if (!Number.isSafeInteger(micros)) return `${micros} micros`;
  const amount = microsToUsd(micros);
  return amount.startsWith('-') ? `-$${amount.slice(1)}` : `$${amount}`;
}

/** A value or a dash. */
export function orDash(value: string | number | boolean | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

/** The `--json` document of a result. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The error line (or JSON document) written to stderr. */
export function renderError(report: ErrorReport, json: boolean): string {
  if (json) return `${JSON.stringify({ error: { code: report.code, message: report.message } })}\n`;
  return `igw: ${sanitize(report.message)} (${report.code})\n`;
}
