/** The GPU edit (02 §5.5) and container settings (§7) on the template's YAML document. */
import { AppError } from '@appliance/common';
import type { Document, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Template } from './template.ts';
import { YAML_OPTIONS } from './yaml-doc.ts';
import { yaml } from './yaml-lib.ts';

export type RestartPolicy = 'no' | 'always' | 'unless-stopped' | 'on-failure';

export interface Settings {
  networkMode?: string;
  restart?: RestartPolicy;
  cpus?: number;
  memoryMiB?: number;
}

export interface GpuEdit {
  device: string;
  groupId: number;
}

const quoted = (value: string): Scalar => {
  const { Scalar } = yaml();
  const s = new Scalar(value);
  s.type = Scalar.QUOTE_DOUBLE;
  return s;
};

const templateInvalid = (template: Template, problem: string, path: string) =>
  new AppError(
    422,
    'template_invalid',
    `The template ${template.id} cannot be edited: ${problem}. Fix the template file.`,
    {
      template: template.id,
      source: template.source,
      problems: [{ path, message: problem }],
    },
  );

/** Appends a double-quoted scalar to a list (created when absent); no duplicate. */
function appendUnique(
  doc: Document,
  svc: YAMLMap,
  key: string,
  value: string,
  template: Template,
  at: string,
): void {
  const { isScalar, isSeq } = yaml();
  const node = svc.get(key, true);
  if (node === undefined || (isScalar(node) && node.value === null)) {
    const list = doc.createNode([]) as YAMLSeq;
    list.items.push(quoted(value));
    svc.set(key, list);
    return;
  }
  if (!isSeq(node)) throw templateInvalid(template, `${at}.${key} is not a list`, `${at}.${key}`);
  const exists = node.items.some((item) => isScalar(item) && String(item.value) === value);
  if (!exists) node.items.push(quoted(value));
}

/**
 * The Compose text of a plan: the template bytes when nothing changes, else the edited document
 * re-serialised (2-space indent, no folding, comments and x-service kept, new scalars quoted).
 */
export function editCompose(template: Template, settings: Settings, gpu: GpuEdit | null): string {
  const changes =
    gpu !== null ||
    settings.networkMode !== undefined ||
    settings.restart !== undefined ||
    settings.cpus !== undefined ||
    settings.memoryMiB !== undefined;
  if (!changes) return template.text;
  const { isMap, isScalar, parseDocument } = yaml();
  const doc = parseDocument(template.text, YAML_OPTIONS);
  const services = doc.get('services', true);
  if (!isMap(services)) throw templateInvalid(template, 'services is not a mapping', 'services');
  for (const pair of services.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const svc = pair.value;
    const at = `services.${name}`;
    if (!isMap(svc)) throw templateInvalid(template, `${at} is not a mapping`, at);
    if (gpu) {
      appendUnique(doc, svc, 'devices', `${gpu.device}:${gpu.device}`, template, at);
      appendUnique(doc, svc, 'group_add', String(gpu.groupId), template, at);
    }
    if (settings.restart !== undefined) svc.set('restart', quoted(settings.restart));
    if (settings.cpus !== undefined) svc.set('cpus', doc.createNode(settings.cpus));
    if (settings.memoryMiB !== undefined) svc.set('mem_limit', quoted(`${settings.memoryMiB}m`));
    if (settings.networkMode !== undefined) {
      svc.delete('network_mode');
      svc.delete('networks');
      const mode = settings.networkMode;
      if (mode === 'bridge' || mode === 'host') svc.set('network_mode', quoted(mode));
      else svc.set('networks', doc.createNode({ [mode]: {} }));
    }
  }
  const mode = settings.networkMode;
  if (mode !== undefined && mode !== 'bridge' && mode !== 'host') {
    const top = doc.get('networks', true);
    if (isMap(top)) top.set(mode, doc.createNode({ external: true }));
    else doc.set('networks', doc.createNode({ [mode]: { external: true } }));
  }
  return doc.toString({ indent: 2, lineWidth: 0, minContentWidth: 0 });
}
