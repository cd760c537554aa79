/**
 * Bytes waiting to become multipart parts (pure). R2 wants every part but the last of one size
 * (at least 5 MiB), so whole parts of exactly `partSize` bytes are cut off the front and the rest
 * waits for more: memory holds under one part plus the piece just added.
 */
export class PartBuffer {
  private chunks: Uint8Array[] = [];
  private length = 0;
  constructor(readonly partSize: number) {}

  get size(): number {
    return this.length;
  }

  push(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.chunks.push(bytes);
    this.length += bytes.byteLength;
  }

  /** Bytes that come before everything pushed so far (earlier steps' segments, read when a part needs them). */
  prepend(chunks: readonly Uint8Array[]): void {
    const nonEmpty = chunks.filter((c) => c.byteLength > 0);
    this.chunks.unshift(...nonEmpty);
    this.length += nonEmpty.reduce((n, c) => n + c.byteLength, 0);
  }

  /** The next whole part, or null while fewer than partSize bytes wait. */
  takePart(): Uint8Array | null {
    if (this.length < this.partSize) return null;
    return this.take(this.partSize);
  }

  /** Everything left (the last part, or what the next step carries over). */
  takeRest(): Uint8Array {
    return this.take(this.length);
  }

  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.chunks[0]!;
      const want = n - at;
      if (head.byteLength <= want) {
        out.set(head, at);
        at += head.byteLength;
        this.chunks.shift();
      } else {
        out.set(head.subarray(0, want), at);
        this.chunks[0] = head.subarray(want);
        at = n;
      }
    }
    this.length -= n;
    return out;
  }
}
