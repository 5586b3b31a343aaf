// Weighted rendezvous (highest random weight) hashing: each client address
// scores every node with a hash of the pair, scaled by the node's weight, and
// goes to the best. A client stays on one node while the set of nodes is the
// same; when a node leaves only its own clients move, and when one joins it
// takes only the clients that now score best on it, its weight's share. With
// score = -weight / ln(u), u uniform in (0, 1), a node wins with probability
// weight / (sum of weights).

/** 2^-53: turns a 53-bit integer into a number in [0, 1). */
const UNIT = 1 / 2 ** 53;

/** The murmur3 finaliser: every input bit reaches every output bit. */
function avalanche(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Two independent 32-bit lanes over the text's UTF-16 units (FNV-1a style), mixed: a uniform u in (0, 1). */
export function uniformHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const high = avalanche(a ^ Math.imul(text.length, 0x27d4eb2d)) >>> 11; // 21 bits
  const low = avalanche(b ^ a); // 32 bits
  return (high * 2 ** 32 + low) * UNIT + UNIT / 2; // never 0, never 1
}

/** The score of `node` for `client`: the highest wins. */
export function rendezvousScore(client: string, node: string, weight: number): number {
  return -weight / Math.log(uniformHash(`${client}\u0000${node}`));
}

/** The node `client` belongs on, of `nodes` (named by `keyOf`, weighed by `weightOf`); undefined if none. */
export function rendezvousPick<T>(client: string, nodes: readonly T[], keyOf: (node: T) => string, weightOf: (node: T) => number): T | undefined {
  let best: T | undefined;
  let bestScore = -Infinity;
  for (const node of nodes) {
    const weight = weightOf(node);
    if (!(weight > 0)) continue;
    const score = rendezvousScore(client, keyOf(node), weight);
    if (score > bestScore) {
      bestScore = score;
      best = node;
    }
  }
  return best;
}
