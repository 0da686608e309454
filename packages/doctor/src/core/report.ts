/** The report: verdicts as aligned text for a person or JSON for a script, and the exit code. */
import type { Verdict } from './checks.ts';

export const DOCTOR_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface ReportHeader {
  configFile: string | null;
  root: string;
}

export interface JsonReport {
  ok: boolean;
  failed: number;
  warnings: number;
  configFile: string | null;
  root: string;
  checks: Verdict[];
}

const MARK: Record<Verdict['status'], string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/** 0 when no required check failed (warnings allowed), else 1. */
export function exitCodeOf(verdicts: readonly Verdict[]): number {
  return verdicts.some((v) => v.status === 'fail') ? DOCTOR_EXIT.failed : DOCTOR_EXIT.ok;
}

export function jsonReport(verdicts: readonly Verdict[], header: ReportHeader): JsonReport {
  return {
    ok: exitCodeOf(verdicts) === DOCTOR_EXIT.ok,
    failed: verdicts.filter((v) => v.status === 'fail').length,
    warnings: verdicts.filter((v) => v.status === 'warn').length,
    configFile: header.configFile,
    root: header.root || '/',
    checks: [...verdicts],
  };
}

/**
 * One line per check (status, name, what was found, "(optional)" for optional checks), the fix
 * indented under every warning and failure, then a closing sentence.
 */
export function textReport(verdicts: readonly Verdict[], header: ReportHeader): string {
  const width = Math.max(...verdicts.map((v) => v.title.length));
  const lines = [
    `appliance doctor — config ${header.configFile ?? '(not loaded)'}, root ${header.root || '/'}`,
    '',
  ];
  for (const v of verdicts) {
    const optional = v.required ? '' : ' (optional)';
    lines.push(`  ${MARK[v.status].padEnd(4)}  ${v.title.padEnd(width)}  ${v.detail}${optional}`);
    if (v.fix) lines.push(`  ${' '.repeat(4)}  ${' '.repeat(width)}  fix: ${v.fix}`);
  }
  const failed = verdicts.filter((v) => v.status === 'fail').length;
  const warnings = verdicts.filter((v) => v.status === 'warn').length;
  lines.push('');
  const counts = `${failed} required check${failed === 1 ? '' : 's'} failed, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  lines.push(
    failed > 0
      ? `${counts}: the service cannot do its job until the FAIL lines are fixed.`
      : warnings > 0
        ? `${counts}: the service can run; the warnings limit what it can do.`
        : 'Every check passed.',
  );
  return `${lines.join('\n')}\n`;
}
