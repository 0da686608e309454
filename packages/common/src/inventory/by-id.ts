/**
 * Identity of a disk from its `/dev/disk/by-id` link names (03 §2.3). Pure: the reader resolves
 * the links and passes the names that point at one disk.
 */
export interface ByIdIdentity {
  wwn: string | null;
  serial: string | null;
  byIdName: string | null;
  weakIdentity: boolean;
}

const PART_SUFFIX = /-part\d+$/;

/** Links ending in `-part<digits>` name partitions and are skipped. */
export const isPartitionLink = (name: string): boolean => PART_SUFFIX.test(name);

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const shortestFirst = (a: string, b: string): number => a.length - b.length || byCodeUnit(a, b);

const isNvmeName = (n: string): boolean =>
  n.startsWith('nvme-') && !n.startsWith('nvme-eui.') && !n.startsWith('nvme-nvme.');
const isScsiSerialName = (n: string): boolean => /^scsi-[S01]/.test(n);
const afterLastUnderscore = (n: string): string => n.slice(n.lastIndexOf('_') + 1);

function shortest(names: readonly string[], keep: (n: string) => boolean): string | null {
  const hits = names.filter(keep).sort(shortestFirst);
  return hits[0] ?? null;
}

/** Serial sources in order; `strong` ones count against weak identity. */
const SERIAL_SOURCES: { keep: (n: string) => boolean; extract: (n: string) => string; strong: boolean }[] = [
  { keep: (n) => n.startsWith('ata-'), extract: afterLastUnderscore, strong: true },
  { keep: isNvmeName, extract: afterLastUnderscore, strong: true },
  { keep: isScsiSerialName, extract: afterLastUnderscore, strong: true },
  { keep: (n) => n.startsWith('virtio-'), extract: (n) => n.slice('virtio-'.length), strong: true },
  {
    keep: (n) => n.startsWith('usb-'),
    extract: (n) => afterLastUnderscore(n).replace(/-\d+:\d+$/, ''),
    strong: false,
  },
  { keep: (n) => n.startsWith('mmc-'), extract: afterLastUnderscore, strong: false },
];

const BY_ID_PREFIXES: ((n: string) => boolean)[] = [
  (n) => n.startsWith('wwn-'),
  (n) => n.startsWith('ata-'),
  isNvmeName,
  (n) => n.startsWith('scsi-'),
  (n) => n.startsWith('virtio-'),
  (n) => n.startsWith('usb-'),
  (n) => n.startsWith('mmc-'),
];

/** Derives wwn, serial, byIdName and weakIdentity from the link names of one whole disk. */
export function identityFromLinks(linkNames: readonly string[]): ByIdIdentity {
  const names = linkNames.filter((n) => !isPartitionLink(n));
  const wwnLink = names.filter((n) => n.startsWith('wwn-')).sort(byCodeUnit)[0];
  const wwn = wwnLink ? wwnLink.slice('wwn-'.length) || null : null;

  let serial: string | null = null;
  let strongSerial = false;
  for (const source of SERIAL_SOURCES) {
    const link = shortest(names, source.keep);
    if (link === null) continue;
    const value = source.extract(link);
    if (value === '') continue;
    serial = value;
    strongSerial = source.strong;
    break;
  }

  let byIdName: string | null = null;
  for (const keep of BY_ID_PREFIXES) {
    byIdName = shortest(names, keep);
    if (byIdName !== null) break;
  }

  return { wwn, serial, byIdName, weakIdentity: wwn === null && !strongSerial };
}
