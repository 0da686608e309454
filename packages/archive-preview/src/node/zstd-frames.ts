/**
 * A zstd stream as the format defines it: one frame after another (RFC 8878 §3), every byte part of
 * a frame. Each frame is decoded by node:zlib's zstd decompressor, with backpressure.
 *
 * node:zlib alone does not do this: its decompressor ends its output at the end of a frame and
 * drops the rest of that input chunk, so bytes after a frame (garbage, or a further frame in the
 * same chunk) passed unseen (issue 25: a file that `zstd -t` refuses was read as an archive). Here
 * the bytes of a chunk the decompressor did not consume start the next frame, in a new decompressor;
 * anything that is not a frame fails there as invalid zstd. The archives export writes hold two
 * frames (node's compressor ends the stream with an empty second frame), so frames after the first
 * are read, not refused.
 */
import type { ZstdDecompress } from 'node:zlib';

/** Decodes `source` frame after frame; `decoder()` makes the decompressor of each frame. */
export async function* decodeZstdFrames(
  source: AsyncIterable<Buffer>,
  decoder: () => ZstdDecompress,
): AsyncGenerator<Buffer> {
  const input = source[Symbol.asyncIterator]();
  /** Bytes after the end of the previous frame, not yet given to a decompressor. */
  let carry: Buffer | null = null;
  for (;;) {
    const z = decoder();
    // Feeds `z` one chunk at a time (each write's callback comes once the chunk was decoded, so
    // the bytes it consumed are known) until the source ends or `z` stops at a frame's end.
    const feeding = (async () => {
      for (;;) {
        let chunk: Buffer;
        if (carry) {
          chunk = carry;
          carry = null;
        } else {
          const next = await input.next();
          if (next.done) {
            z.end();
            return;
          }
          chunk = next.value;
        }
        const before = z.bytesWritten;
        await new Promise<void>((resolve, reject) => {
          z.write(chunk, (err) => (err ? reject(err) : resolve()));
        });
        const used = z.bytesWritten - before;
        // `z` ended its output at a frame's end inside this chunk: the rest is the next frame's.
        if (used < chunk.length) {
          carry = chunk.subarray(used);
          return;
        }
      }
    })();
    feeding.catch((err: unknown) => z.destroy(err as Error));
    try {
      for await (const out of z) yield out as Buffer;
      await feeding;
    } finally {
      z.destroy();
    }
    if (carry === null) return;
  }
}
