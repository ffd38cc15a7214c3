/** A byte stream that delivers `bytes` in separate reads, split at each offset in `cuts`, as a network may. */
export function streamOfReads(bytes: Uint8Array, ...cuts: number[]): ReadableStream<Uint8Array> {
  const bounds = [0, ...cuts, bytes.length];
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 1; i < bounds.length; i++) controller.enqueue(bytes.subarray(bounds[i - 1], bounds[i]));
      controller.close();
    },
  });
}
