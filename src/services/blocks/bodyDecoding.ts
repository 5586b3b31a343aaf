// Reads a block's extrinsics and events with the runtime's compiled codecs,
// pausing now and then so that one big block does not hold up every other
// request; anything the compiled reading does not cover (old metadata, an
// unknown extrinsic format, bytes it rejects) is read by polkadot.js instead,
// for the whole block, and counted.
import type { Block, EventRecord } from '@polkadot/types/interfaces';
import { blake2AsU8a } from '@polkadot/util-crypto';

import type { DecodedBody } from '../../decode/decodedBody';
import { bytesOfHex, hexOfBytes } from '../../decode/hex';
import { decodeWithCodecs, eventRecordsOf, eventsWithCodecs } from '../../decode/polkadotReference';
import { DecodeError } from '../../decode/reader';
import { UnsupportedFormat, type DecodedEvent, type DecodedExtrinsic, type RuntimeCodecs } from '../../decode/runtimeCodecs';
import type { Hex } from '../../rpc/nodeClient';
import type { Runtime } from '../runtimes';

/** Running totals of how blocks were read in this process (decoding is shared by every chain served); server.ts hands them to /metrics. */
export interface DecodeCounters {
  compiled: number;
  fallback: number;
  pauses: number;
  faults: number;
}

export const decodeCounters: DecodeCounters = { compiled: 0, fallback: 0, pauses: 0, faults: 0 };

/** Work between pauses: long enough to cost little, short enough that a warm answer waits at most this. */
const SLICE_MS = 4;
const CHECK_EVERY = 32;

/**
 * Whatever stops the compiled reading (bytes it rejects, a format it does not cover, or
 * a fault of its own) is polkadot.js's to read; its failure, if any, is the answer. A
 * fault of the compiled reading itself is counted.
 */
function countIfFault(error: unknown): void {
  if (!(error instanceof DecodeError || error instanceof UnsupportedFormat)) decodeCounters.faults++;
}

/**
 * The body of a block. The events may still be on their way: the extrinsics are
 * read meanwhile. `reference` builds the polkadot.js reading; it is only called
 * when the compiled one cannot read the block. A failure to get the events is the
 * request's, never counted as the reading's.
 */
export async function decodeBody(
  runtime: Runtime,
  extrinsicsHex: Hex[],
  eventsBytes: Uint8Array | null | Promise<Uint8Array | null>,
  reference: (eventsBytes: Uint8Array | null) => { block: Block; events: EventRecord[] | null },
): Promise<DecodedBody> {
  const { codecs } = runtime;
  const pacer = new Pacer();
  const extrinsics = codecs instanceof UnsupportedFormat ? undefined : await compiledOrUndefined(() => readExtrinsics(codecs, extrinsicsHex, pacer));
  const events = await eventsBytes;
  if (extrinsics && !(codecs instanceof UnsupportedFormat)) {
    const read = events ? await compiledOrUndefined(() => readEvents(codecs, events, pacer)) : null;
    if (read !== undefined) {
      decodeCounters.compiled++;
      return { ...extrinsics, events: read };
    }
  }
  decodeCounters.fallback++;
  const reading = reference(events);
  return decodeWithCodecs(reading.block, reading.events, extrinsicsHex);
}

/** What the compiled reading makes of a part of a block; undefined when it cannot read it. */
async function compiledOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    countIfFault(error);
    return undefined;
  }
}

/** A block's events alone (no extrinsics): the compiled reading, else polkadot.js's. */
export function decodeEvents(runtime: Runtime, eventsBytes: Uint8Array): DecodedEvent[] {
  const { codecs } = runtime;
  if (!(codecs instanceof UnsupportedFormat)) {
    try {
      return codecs.eventRecords(eventsBytes);
    } catch (error) {
      countIfFault(error);
    }
  }
  return eventsWithCodecs(eventRecordsOf(runtime.registry, eventsBytes));
}

async function readExtrinsics(codecs: RuntimeCodecs, extrinsicsHex: Hex[], pacer: Pacer): Promise<Omit<DecodedBody, 'events'>> {
  const count = extrinsicsHex.length;
  const extrinsics: DecodedExtrinsic[] = new Array(count);
  const extrinsicBytes: Uint8Array[] = new Array(count);
  const hashes: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const bytes = bytesOfHex(extrinsicsHex[i]);
    extrinsicBytes[i] = bytes;
    extrinsics[i] = codecs.extrinsic(bytes);
    // A plain view: @polkadot/util copies a Buffer before hashing it.
    hashes[i] = hexOfBytes(blake2AsU8a(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), 256));
    if (i % CHECK_EVERY === CHECK_EVERY - 1) await pacer.maybePause();
  }
  return { extrinsics, extrinsicBytes, hashes };
}

async function readEvents(codecs: RuntimeCodecs, eventsBytes: Uint8Array, pacer: Pacer): Promise<DecodedEvent[]> {
  const reader = codecs.eventReader(eventsBytes);
  const events: DecodedEvent[] = new Array(reader.count);
  for (let i = 0; i < reader.count; i++) {
    events[i] = reader.next();
    if (i % CHECK_EVERY === CHECK_EVERY - 1) await pacer.maybePause();
  }
  reader.end();
  return events;
}

/** Yields to the event loop once a slice of work has run for SLICE_MS. */
class Pacer {
  private sliceStart = performance.now();

  async maybePause(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    decodeCounters.pauses++;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
