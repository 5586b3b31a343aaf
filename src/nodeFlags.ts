// The flags fastcar's node runs with: `npm start`, the image, the compose file, cluster
// workers and the harness all pass these (test/unit/deployment.test.ts checks they do).

/**
 * V8's memory reducer runs full collections once a process looks idle. An idle fastcar
 * holds no request objects then, so those collections drop the hidden classes (maps)
 * that the hot paths' optimized code was compiled against: that code is thrown away,
 * and the next burst of requests (an indexer's next batch, the next finalized block)
 * runs unoptimized while V8 compiles it all again on its helper threads. A cold walk
 * taken after pauses (`npm run bench:decode`) met 54 such deoptimizations and about
 * twice the CPU per small block; with the reducer off, none. The heap then stays as
 * large as it grew, and what fills it is bounded on its own (FASTCAR_CACHE_MAX_BYTES).
 * It must be given on the command line: V8 sets the reducer up before any script runs.
 */
export const NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];

/** The flags this process was started without. */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}
