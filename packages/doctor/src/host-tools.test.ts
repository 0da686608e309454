// The one list of host tools (@appliance/common's HOST_TOOLS) against what the code runs, what
// doctor checks and what docs/install.md tells an installer to install.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST_TOOLS, installPackages } from '@appliance/common';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { EXTRA_TOOLS, TOOL_CHECKS } from './core/checks.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const packagesDir = path.join(repo, 'packages');

/** The filesystems the service formats with (array: xfs/ext4/btrfs; backup disks: + exfat). */
const FILESYSTEMS = ['xfs', 'ext4', 'btrfs', 'exfat'];

/**
 * Call sites whose command is computed: `file: argument text` → the tools it can run, with where
 * they come from. A new computed call site fails the census until it is declared here.
 */
const COMPUTED: Record<string, readonly string[]> = {
  // the tools array built just above from literals and `mkfs.${plan.filesystem}`
  'array-planner/src/operations/plans.ts: tools': [
    'wipefs',
    ...FILESYSTEMS.slice(0, 3).map((f) => `mkfs.${f}`),
    'blkid',
    'mount',
    'umount',
    'findmnt',
    'snapraid',
    'setpriv',
    'rsync',
    'setfacl',
    'setfattr',
    'getfattr',
  ],
  // readMetadata/applyMetadata's `tool` parameter: the four named in the same file's requireTools
  'array-planner/src/node/metadata.ts: tool': ['getfacl', 'getfattr', 'setfacl', 'setfattr'],
  // the compose tool: `docker compose` or `docker-compose`
  'backups/src/node/stack.ts: tool.command': ['docker', 'docker-compose'],
  'template-installer/src/node/compose-tool.ts: cmd': ['docker', 'docker-compose'],
  'template-installer/src/node/compose-tool.ts: tool.command': ['docker', 'docker-compose'],
  // the stack operations run the same detected compose tool
  'template-installer/src/stacks/node/compose.ts: tool.command': ['docker', 'docker-compose'],
  // apt-get itself, or systemd-run starting it in a transient unit
  'updates/src/node/apt.ts: command': ['apt-get', 'systemd-run'],
  // the mover's rsync, under setpriv when the service runs it (its death signal)
  "shares/src/mover/node/batch.ts: withSetpriv ? 'setpriv' : rsync": ['setpriv', 'rsync'],
  // FormatCommand.command: the `command:` literals of external-disk/src/core/commands.ts (found below)
  'external-disk/src/node/format-runner.ts: cmd.command': [],
  'external-disk/src/operations/format.ts: toolsFor(filesystem)': [
    'wipefs',
    'blkid',
    'blockdev',
    ...FILESYSTEMS.map((f) => `mkfs.${f}`),
  ],
  // doctor probes the list itself; its version() helper runs Compose and dpkg-query
  'doctor/src/node/probes.ts: cmd': ['docker', 'docker-compose', 'dpkg-query'],
  'doctor/src/node/probes.ts: name': [],
  // the runner's own implementation
  'common/src/command.ts: command': [],
  'common/src/command.ts: executable': [],
  'common/src/command.ts: t': [],
  'common/src/command.ts: tools': [],
  'common/src/command.ts: missing': [],
  // `appliance serve` starts the service's own launcher, not a host tool
  'cli/src/features/serve/index.ts: launcher': [],
};

interface Site {
  where: string;
  tool: string;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (
      ['node_modules', 'dist', 'test', 'scripts', 'test-support', 'testing', 'reliability'].includes(e.name)
    )
      continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (/\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name) && !/^test-/.test(e.name)) yield p;
  }
}

const RUNNER_METHODS = new Set(['run', 'resolve']);
const TOOL_FUNCTIONS: Record<string, number> = {
  requireTools: 1,
  missingTools: 1,
  missingTool: 0,
  spawn: 0,
  spawnSync: 0,
  execFile: 0,
  execFileSync: 0,
  execa: 0,
};

/** Tool names a literal argument names; null when it is computed. `mkfs.${x}` is every mkfs. */
function literalTools(node: ts.Expression): string[] | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) {
    if (node.head.text === 'mkfs.') return FILESYSTEMS.map((f) => `mkfs.${f}`);
    return null;
  }
  if (ts.isArrayLiteralExpression(node)) {
    const out: string[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isStringLiteral(n) || ts.isTemplateExpression(n) || ts.isNoSubstitutionTemplateLiteral(n))
        out.push(...(literalTools(n as ts.Expression) ?? []));
      else ts.forEachChild(n, visit);
    };
    visit(node);
    return out;
  }
  return null;
}

/** Every tool the services' code runs, and every computed call site. */
function census(): { sites: Site[]; computed: Map<string, string> } {
  const sites: Site[] = [];
  const computed = new Map<string, string>();
  for (const file of sourceFiles(packagesDir)) {
    const rel = path.relative(packagesDir, file);
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (n: ts.Node) => `${rel}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    const record = (n: ts.Node, arg: ts.Expression | undefined) => {
      if (!arg) return;
      const names = literalTools(arg);
      if (names === null) computed.set(`${rel}: ${arg.getText()}`, at(n));
      else for (const tool of names) sites.push({ where: at(n), tool });
    };
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n)) {
        const callee = n.expression;
        if (
          ts.isPropertyAccessExpression(callee) &&
          RUNNER_METHODS.has(callee.name.text) &&
          /runner$/i.test(callee.expression.getText())
        ) {
          record(n, n.arguments[0]);
          // setpriv … -- TOOL …: the tool it starts
          const [first, args] = n.arguments;
          if (
            first &&
            ts.isStringLiteral(first) &&
            first.text === 'setpriv' &&
            args &&
            ts.isArrayLiteralExpression(args)
          ) {
            const i = args.elements.findIndex((e) => ts.isStringLiteral(e) && e.text === '--');
            const next = args.elements[i + 1];
            if (next && ts.isStringLiteral(next)) sites.push({ where: at(n), tool: next.text });
          }
        } else if (ts.isIdentifier(callee) && callee.text in TOOL_FUNCTIONS)
          record(n, n.arguments[TOOL_FUNCTIONS[callee.text]!]);
      }
      // a command object ({ command: 'wipefs', args: [...] }) run later by a computed call site
      if (
        ts.isPropertyAssignment(n) &&
        n.name.getText() === 'command' &&
        (ts.isStringLiteral(n.initializer) || ts.isTemplateExpression(n.initializer))
      ) {
        const names = literalTools(n.initializer);
        const text = ts.isStringLiteral(n.initializer) ? n.initializer.text : n.initializer.head.text;
        if (names && !/\s/.test(text)) for (const tool of names) sites.push({ where: at(n), tool });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { sites, computed };
}

describe('the host tool list', () => {
  const listed = new Map(HOST_TOOLS.map((h) => [h.tool, h]));
  const { sites, computed } = census();

  it('names every tool a feature runs', () => {
    // the census really reads the code: tools of several features are found where they are run
    const where = (tool: string) => sites.filter((s) => s.tool === tool).map((s) => s.where.split(':')[0]);
    expect(where('restic')).toContain('backups/src/node/restic.ts');
    expect(where('smartctl')).toContain('watchers/src/node/smartctl.ts');
    expect(where('smbd')).toContain('shares/src/access/node/sandbox-smbd.ts');
    expect(where('blockdev')).toContain('external-disk/src/core/commands.ts');
    const declared = Object.values(COMPUTED).flat();
    const unlisted = [...sites, ...declared.map((tool) => ({ where: 'COMPUTED', tool }))].filter(
      (s) => listed.get(s.tool)?.runBy !== 'service',
    );
    expect(unlisted, 'run by the code but not in HOST_TOOLS (packages/common/src/host-tools.ts)').toEqual([]);
  });

  it('declares every call site whose command is computed, and no site that is gone', () => {
    expect(
      [...computed.keys()].filter((k) => !(k in COMPUTED)),
      'computed call sites to declare in COMPUTED',
    ).toEqual([]);
    expect(
      Object.keys(COMPUTED).filter((k) => !computed.has(k)),
      'COMPUTED entries no code has any more',
    ).toEqual([]);
  });

  it('names no tool the service does not run (operator tools aside)', () => {
    const run = new Set([...sites.map((s) => s.tool), ...Object.values(COMPUTED).flat()]);
    const stale = HOST_TOOLS.filter((h) => h.runBy === 'service' && !run.has(h.tool)).map((h) => h.tool);
    expect(stale).toEqual([]);
    expect(new Set(HOST_TOOLS.map((h) => h.tool)).size).toBe(HOST_TOOLS.length);
  });

  it("is what doctor checks: one check or probe per tool, with the list's required flag", () => {
    expect([...TOOL_CHECKS, ...EXTRA_TOOLS].map((c) => c.tool).sort()).toEqual(
      HOST_TOOLS.map((h) => h.tool).sort(),
    );
    for (const c of TOOL_CHECKS) expect(c.required, c.tool).toBe(listed.get(c.tool)!.required);
  });

  it("is docs/install.md's package lists and tool table", () => {
    const guide = fs.readFileSync(path.join(repo, 'docs/install.md'), 'utf8');
    const step = guide.slice(guide.indexOf('## 1. Debian packages'), guide.indexOf('## 2. Node 24'));
    const block = step.slice(step.indexOf('```sh') + 5, step.indexOf('```', step.indexOf('```sh') + 5));
    const commands = block
      .replace(/\\\n/g, ' ')
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter((l) => l.startsWith('apt-get install'))
      .map((l) =>
        l
          .split(/\s+/)
          .slice(2)
          .filter((w) => !w.startsWith('-')),
      );
    const [required, optional] = commands;
    expect(commands).toHaveLength(3); // required, optional, then Node's bootstrap (nodejs npm)
    expect(required?.slice().sort()).toEqual(installPackages().required);
    expect(optional?.slice().sort()).toEqual(installPackages().optional);
    const rows = step
      .split('\n')
      .filter((l) => /^\| `/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()));
    expect(rows.map((r) => [r[1]!.replaceAll('`', ''), r[2], r[3], r[4], r[5]])).toEqual(
      HOST_TOOLS.map((h) => [h.tool, h.package, h.required ? 'required' : 'optional', h.feature, h.why]),
    );
  });
});
