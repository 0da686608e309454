/**
 * The 03 §16 backstop of every test that runs a disk-writing tool, as a POSIX shell preamble for a
 * shim placed first on PATH: it exits 97 unless the tool's last argument is a loop device (or one of
 * its partitions) backed by an image inside `labDir`. So a test can never write another disk of the
 * machine, whatever the code under test decides. The caller appends what the shim does next.
 */
export function labTargetGuard(labDir: string): string {
  return `for last; do :; done
case "$last" in
  /dev/loop[0-9]*) ;;
  *) echo "guard: refusing $last" >&2; exit 97 ;;
esac
base=$(echo "\${last#/dev/}" | sed -E 's/^(loop[0-9]+)p[0-9]+$/\\1/')
backing=$(cat "/sys/class/block/$base/loop/backing_file" 2>/dev/null)
case "$backing" in
  ${labDir}/*) ;;
  *) echo "guard: $last is not a lab disk" >&2; exit 97 ;;
esac
`;
}
