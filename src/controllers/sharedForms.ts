// Compressed forms of a big answer that is byte for byte the same at many blocks (a
// runtime's metadata: over a megabyte, tens of milliseconds to compress), made once per
// encoding and kept within a byte budget, so a request for it at any block of the
// runtime costs no compression. Answers that differ per block are compressed per
// request by the writer, as usual.
import { LRUCache } from 'lru-cache';

import { compress, type Encoding } from '../http/compression';

/** Room for the compressed forms of a few runtimes' metadata (about 0.2 MB each per version and encoding, beside its text). */
const BUDGET_BYTES = 32 * 1024 * 1024;

/** A form, and the text it was made from: a form is only given for that same text (a rebuilt text may differ). */
interface Form {
  source: string;
  bytes: Buffer;
}

const forms = new LRUCache<string, Form>({ maxSize: BUDGET_BYTES, sizeCalculation: (form, key) => form.bytes.length + form.source.length + key.length });
const making = new Map<string, Promise<Form>>();

/** The `encoded` of a reply whose body is the same wherever `sharedKey` is: each form made once, by the first to ask. */
export function sharedEncoder(sharedKey: string, body: string): (encoding: Encoding) => Promise<Buffer> {
  return async (encoding) => {
    const key = `${encoding}:${sharedKey}`;
    const kept = forms.get(key);
    // The same string (usually the very one, compared by reference) or an equal one.
    if (kept && kept.source === body) return kept.bytes;
    let made = making.get(key);
    if (!made || (await made).source !== body) {
      made = compress(Buffer.from(body), encoding, 'kept').then((bytes) => ({ source: body, bytes }));
      const mine = made;
      making.set(key, mine);
      mine
        .then((form) => forms.set(key, form))
        .catch(() => undefined)
        .finally(() => {
          if (making.get(key) === mine) making.delete(key);
        });
    }
    return (await made).bytes;
  };
}
